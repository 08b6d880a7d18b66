// The sm_90a code Triton 3 generates for the forward pass of its
// fused-attention tutorial (python/tutorials/06-fused-attention.py, _attn_fwd,
// non-causal, f16, HEAD_DIM 64, BLOCK_M 128, BLOCK_N 64, num_warps 8, two
// K/V stages, host tensor descriptors), written out in CUDA with the
// inline-assembly templates Triton's NVIDIA backend emits, so that its PTX
// has the same instruction sequence:
//   - Q, K and V arrive by cp.async.bulk.tensor (128B swizzle) on mbarriers
//     armed with expect_tx by one elected thread; every thread waits with
//     mbarrier.try_wait.parity;
//   - S = Q K^T is a wgmma.mma_async m64n64k16 per warpgroup with both
//     operands from 128B-swizzled K-major descriptors;
//   - the online softmax works in the log2 domain (qk_scale = sm_scale *
//     log2(e)): row maxima and sums across the four lanes of a row with
//     shfl.sync.bfly, ex2.approx.f32, the running sum and accumulator rescaled
//     by alpha = exp2(m_old - m_new);
//   - P is packed to f16 with cvt.rn.f16x2.f32 and multiplied from registers
//     (wgmma.mma_async with A in registers) by V, whose descriptor is
//     MN-major (imm-trans-b 1: V is BLOCK_N x HEAD_DIM row-major);
//   - the epilogue divides by the running sum, stores M = m + log2(l)
//     (lg2.approx.f32) for the backward pass, writes O into a swizzled shared
//     tile, fences the generic proxy against the async proxy and stores it
//     with a TMA store (cp.async.bulk.tensor ... bulk_group, commit, wait).
//
// Triton itself is not installed where this was written; this file stands
// in for its output (see README.md).
//
// Compile (nvcc 12.5):
//   nvcc -arch=sm_90a -ptx -o triton_attn_fwd.ptx triton_attn_fwd.cu
// Launch: grid (N_CTX/128, Z*H), block 256, dynamic shared memory 49 KiB +
// 1 KiB; arguments: sm_scale (f32), M (f32, Z*H*N_CTX), tensor maps of Q, K,
// V and O (f16, dims 64 x Z*H*N_CTX; boxes 64 x 128 for Q and O, 64 x 64 for
// K and V; 128B swizzle), N_CTX, and the Q, K, V, O tensors the maps
// describe (read and written only through the maps).
#include <cmath>
#include <cstdint>

#define BM 128
#define BN 64
#define HD 64
#define Q_BYTES (BM * HD * 2)
#define KV_BYTES (BN * HD * 2)

struct alignas(64) TmaDesc {
  unsigned char bytes[128];
};

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t phase) {
  asm volatile(
      "{\n"
      ".reg .pred complete;\n"
      "waitLoop:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 complete, [%0], %1;\n"
      "@!complete bra.uni waitLoop;\n"
      "}\n" ::"r"(bar),
      "r"(phase));
}

// tma_load arms bar with the box's bytes and loads the box at (c0, c1), on
// the elected thread only.
__device__ __forceinline__ void tma_load(uint32_t dst, const TmaDesc *map, uint32_t bar, int c0, int c1, bool pred,
                                         int bytes) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %5, 0;\n"
      "@p mbarrier.arrive.expect_tx.shared::cta.b64 _, [%2], %6;\n"
      "@p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n"
      "}\n" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"((int)pred), "r"(bytes)
      : "memory");
}

__device__ __forceinline__ uint64_t desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 |
         (uint64_t)1 << 62;
}

#define ACC32(d)                                                                                              \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),  \
      "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), \
      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])

// S (+)= Q K^T, both from shared memory.
__device__ __forceinline__ void wgmma_ss(float (&d)[32], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n"
      "}\n"
      : ACC32(d)
      : "l"(da), "l"(db), "r"(scale_d));
}

// O += P V, P from registers, V from an MN-major descriptor.
__device__ __forceinline__ void wgmma_rs(float (&d)[32], const uint32_t (&a)[4], uint64_t db) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n"
      "}\n"
      : ACC32(d)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1));
}

__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float lg2(float x) {
  float y;
  asm("lg2.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffff, x, 2));
}

__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffff, x, 1);
  return x + __shfl_xor_sync(0xffffffff, x, 2);
}

__device__ __forceinline__ uint32_t pack_f16x2(float lo, float hi) {
  uint32_t r;
  asm volatile("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

extern "C" __global__ void __launch_bounds__(256)
    _attn_fwd(float sm_scale, float *M, const __grid_constant__ TmaDesc desc_q, const __grid_constant__ TmaDesc desc_k,
              const __grid_constant__ TmaDesc desc_v, const __grid_constant__ TmaDesc desc_o, int n_ctx, const void *q,
              const void *k, const void *v, void *o) {
  extern __shared__ __align__(1024) unsigned char global_smem[];
  uint32_t base = (smem_addr(global_smem) + 1023) & ~1023u;
  uint32_t sq = base;                  // Q, later O
  uint32_t skv = base + Q_BYTES;       // stage s: K at skv + 2s*KV_BYTES, V after it
  uint32_t bars = skv + 4 * KV_BYTES;  // Q, K0, K1, V0, V1
  uint32_t bar_q = bars, bar_k = bars + 8, bar_v = bars + 24;

  int start_m = blockIdx.x;
  int off_hz = blockIdx.y;
  int qo_row = off_hz * n_ctx + start_m * BM;
  int kv_row = off_hz * n_ctx;
  int nblocks = n_ctx / BN;
  bool leader = threadIdx.x == 0;

  if (leader) {
    for (int i = 0; i < 5; ++i) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bars + 8 * i));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  tma_load(sq, &desc_q, bar_q, 0, qo_row, leader, Q_BYTES);
  for (int j = 0; j < 2 && j < nblocks; ++j) {
    tma_load(skv + 2 * j * KV_BYTES, &desc_k, bar_k + 8 * j, 0, kv_row + j * BN, leader, KV_BYTES);
    tma_load(skv + (2 * j + 1) * KV_BYTES, &desc_v, bar_v + 8 * j, 0, kv_row + j * BN, leader, KV_BYTES);
  }

  const float qk_scale = sm_scale * 1.44269504f;
  int wg = threadIdx.x / 128;
  int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  float m_i[2] = {-INFINITY, -INFINITY};  // rows g and g+8 of this thread
  float l_i[2] = {1.0f, 1.0f};
  float acc[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) acc[i] = 0.0f;

  mbar_wait(bar_q, 0);
  uint32_t q_tile = sq + wg * 64 * 128;
  for (int j = 0; j < nblocks; ++j) {
    int s = j % 2;
    uint32_t phase = (j / 2) & 1;
    uint32_t k_tile = skv + 2 * s * KV_BYTES, v_tile = k_tile + KV_BYTES;
    mbar_wait(bar_k + 8 * s, phase);
    float qk[32];
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < HD / 16; ++kk) {
      wgmma_ss(qk, desc(q_tile + kk * 32, 16, 1024), desc(k_tile + kk * 32, 16, 1024), kk > 0);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

    // Online softmax, rows g (even pairs) and g+8 (odd pairs).
    float m_ij[2], l_ij[2] = {0.0f, 0.0f}, alpha[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float mx = -INFINITY;
#pragma unroll
      for (int i = 0; i < 32; ++i)
        if ((i / 2) % 2 == h) mx = fmaxf(mx, qk[i]);
      m_ij[h] = fmaxf(m_i[h], quad_max(mx) * qk_scale);
    }
#pragma unroll
    for (int i = 0; i < 32; ++i) {
      int h = (i / 2) % 2;
      qk[i] = ex2(qk[i] * qk_scale - m_ij[h]);
      l_ij[h] += qk[i];
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      alpha[h] = ex2(m_i[h] - m_ij[h]);
      l_i[h] = l_i[h] * alpha[h] + quad_sum(l_ij[h]);
      m_i[h] = m_ij[h];
    }
#pragma unroll
    for (int i = 0; i < 32; ++i) acc[i] *= alpha[(i / 2) % 2];

    // P's columns 16kc..16kc+15 as the A fragment of k16 step kc, written
    // before the wgmma.fence that orders these register writes before the
    // wgmma.mma_async reads them (as the rescaled accumulator is).
    uint32_t a[BN / 16][4];
#pragma unroll
    for (int kc = 0; kc < BN / 16; ++kc) {
#pragma unroll
      for (int r = 0; r < 4; ++r) a[kc][r] = pack_f16x2(qk[8 * kc + 2 * r], qk[8 * kc + 2 * r + 1]);
    }
    mbar_wait(bar_v + 8 * s, phase);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kc = 0; kc < BN / 16; ++kc) {
      // V is MN-major: 64 values of HEAD_DIM per 128-byte row, 8 rows of
      // the key index per 1024-byte atom (SBO), 16 rows per k16 step.
      wgmma_rs(acc, a[kc], desc(v_tile + kc * 2048, 16, 1024));
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

    // Every warp is done with stage s: refill it with block j + 2.
    __syncthreads();
    if (j + 2 < nblocks) {
      tma_load(k_tile, &desc_k, bar_k + 8 * s, 0, kv_row + (j + 2) * BN, leader, KV_BYTES);
      tma_load(v_tile, &desc_v, bar_v + 8 * s, 0, kv_row + (j + 2) * BN, leader, KV_BYTES);
    }
  }

  // Epilogue: O = acc / l into the (128B-swizzled) Q tile, M = m + log2(l).
  int g = 16 * warp + lane / 4, t = lane % 4;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    int row = wg * 64 + g + 8 * h;
    if (t == 0) M[off_hz * n_ctx + start_m * BM + row] = m_i[h] + lg2(l_i[h]);
  }
#pragma unroll
  for (int i = 0; i < 32; i += 2) {
    int h = (i / 2) % 2;
    int row = wg * 64 + g + 8 * h;
    int chunk = i / 4;  // column 8(i/4) + 2t
    uint32_t addr = sq + row * 128 + ((chunk ^ (row % 8)) * 16) + 4 * t;
    uint32_t v = pack_f16x2(acc[i] / l_i[h], acc[i + 1] / l_i[h]);
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (leader) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(&desc_o),
                 "r"(sq), "r"(0), "r"(qo_row)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}
