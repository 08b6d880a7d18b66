// The sm_90a code Triton 3 generates for its matrix-multiplication tutorial
// (python/tutorials/03-matrix-multiplication.py: C = A x B, f16 inputs, f32
// accumulation, f16 output; BLOCK_SIZE_M 128, BLOCK_SIZE_N 64,
// BLOCK_SIZE_K 64, GROUP_SIZE_M 8, num_warps 8, num_stages 3), written out
// in CUDA with the inline-assembly templates Triton's NVIDIA backend emits,
// so that its PTX has the same instruction sequence: masked 16-byte
// cp.async.cg.shared.global loads (src-size 0 for masked-off chunks) into
// 128B-swizzled shared tiles, a three-stage cp.async.commit_group /
// wait_group pipeline, fence.proxy.async before the tensor core reads shared
// memory, wgmma.mma_async m64n64k16 with the scale-d predicate and
// imm-trans-b 1 (B is K x N row-major, so its descriptor is MN-major),
// wgmma.wait_group 1 keeping one group in flight, and predicated
// st.global.b32 of cvt.rn.f16x2.f32 pairs in the epilogue.
//
// Triton itself is not installed where this was written; this file stands
// in for its output (see README.md).
//
// Compile (nvcc 12.5):
//   nvcc -arch=sm_90a -ptx -o triton_matmul.ptx triton_matmul.cu
// Launch: grid (cdiv(M,128) * cdiv(N,64)), block 256, dynamic shared memory
// 3 * 24 KiB + 1 KiB; arguments a, b, c, M, N, K, stride_am, stride_bk,
// stride_cm (in elements; the unit strides are specialized away, as Triton
// does).
#include <cstdint>

#define BM 128
#define BN 64
#define BK 64
#define STAGES 3
#define GROUP_M 8
#define A_BYTES (BM * BK * 2)
#define B_BYTES (BK * BN * 2)

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async_16(uint32_t dst, const void *src, bool pred) {
  asm volatile("cp.async.cg.shared.global [ %0 + 0 ], [ %1 + 0 ], 0x10, %2;" ::"r"(dst), "l"(src),
               "r"(pred ? 16 : 0)
               : "memory");
}

// The 128B swizzle: 16-byte chunk c of 128-byte row r of a tile is stored at
// chunk c ^ (r % 8) (the tile is 1024-byte aligned).
__device__ __forceinline__ uint32_t swizzled(uint32_t tile, int row, int chunk) {
  return tile + row * 128 + ((chunk ^ (row % 8)) * 16);
}

__device__ __forceinline__ uint64_t desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 |
         (uint64_t)1 << 62;
}

__device__ __forceinline__ void wgmma(float (&d)[32], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale_d));
}

// load_stage issues the cp.async copies of k-tile kt into stage s.
__device__ __forceinline__ void load_stage(uint32_t base, int s, int kt, const uint16_t *a, const uint16_t *b, int M,
                                           int N, int K, int m0, int n0, int sam, int sbk) {
  uint32_t ta = base + s * (A_BYTES + B_BYTES);
  uint32_t tb = ta + A_BYTES;
  int k0 = kt * BK;
#pragma unroll
  for (int i = 0; i < 4; ++i) {  // A: 128 rows x 8 chunks over 256 threads
    int idx = threadIdx.x + 256 * i;
    int row = idx / 8, chunk = idx % 8;
    bool ok = m0 + row < M && k0 + chunk * 8 < K;
    const uint16_t *src = a + (size_t)(ok ? m0 + row : 0) * sam + (ok ? k0 + chunk * 8 : 0);
    cp_async_16(swizzled(ta, row, chunk), src, ok);
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {  // B: 64 rows of K x 8 chunks of N
    int idx = threadIdx.x + 256 * i;
    int row = idx / 8, chunk = idx % 8;
    bool ok = k0 + row < K && n0 + chunk * 8 < N;
    const uint16_t *src = b + (size_t)(ok ? k0 + row : 0) * sbk + (ok ? n0 + chunk * 8 : 0);
    cp_async_16(swizzled(tb, row, chunk), src, ok);
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(256) matmul_kernel(const uint16_t *a, const uint16_t *b, uint16_t *c,
                                                                int M, int N, int K, int sam, int sbk, int scm) {
  extern __shared__ __align__(1024) unsigned char global_smem[];
  uint32_t base = (smem_addr(global_smem) + 1023) & ~1023u;

  // The tutorial's grouped ordering of the programs.
  int pid = blockIdx.x;
  int num_pid_m = (M + BM - 1) / BM, num_pid_n = (N + BN - 1) / BN;
  int num_pid_in_group = GROUP_M * num_pid_n;
  int group_id = pid / num_pid_in_group;
  int first_pid_m = group_id * GROUP_M;
  int group_size_m = min(num_pid_m - first_pid_m, GROUP_M);
  int pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m);
  int pid_n = (pid % num_pid_in_group) / group_size_m;
  int m0 = pid_m * BM, n0 = pid_n * BN;
  int ktiles = (K + BK - 1) / BK;

  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) {
      load_stage(base, s, s, a, b, M, N, K, m0, n0, sam, sbk);
    } else {
      asm volatile("cp.async.commit_group;" ::: "memory");
    }
  }

  float acc[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) acc[i] = 0.0f;
  int wg = threadIdx.x / 128;
  for (int kt = 0; kt < ktiles; ++kt) {
    int s = kt % STAGES;
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    uint32_t ta = base + s * (A_BYTES + B_BYTES) + wg * 64 * 128;
    uint32_t tb = base + s * (A_BYTES + B_BYTES) + A_BYTES;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      // A: K-major, the next 16 values of K 32 bytes further in the row.
      // B: MN-major, 64 values of N per 128-byte row, the next 8 rows of K
      // at SBO = 1024 bytes, the next 16 rows of K 2048 bytes further.
      wgmma(acc, desc(ta + kk * 32, 16, 1024), desc(tb + kk * 2048, 16, 1024), kt > 0 || kk > 0);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    // The stage the previous k-tile's wgmma read is free now: refill it.
    int next = kt + STAGES - 1;
    if (next < ktiles) {
      load_stage(base, next % STAGES, next, a, b, M, N, K, m0, n0, sam, sbk);
    } else {
      asm volatile("cp.async.commit_group;" ::: "memory");
    }
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");

  // Accumulator element i of lane l in warp w of warpgroup wg: row
  // 64wg + 16w + l/4 + 8((i/2)%2), column 8(i/4) + 2(l%4) + i%2.
  int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  int row = m0 + 64 * wg + 16 * warp + lane / 4;
#pragma unroll
  for (int i = 0; i < 32; i += 2) {
    int r = row + 8 * ((i / 2) % 2);
    int col = n0 + 8 * (i / 4) + 2 * (lane % 4);
    uint32_t packed;
    asm("cvt.rn.f16x2.f32 %0, %2, %1;" : "=r"(packed) : "f"(acc[i]), "f"(acc[i + 1]));
    bool ok = r < M && col < N;
    uint16_t *dst = c + (size_t)(ok ? r : 0) * scm + (ok ? col : 0);
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %2, 0;\n"
        "@p st.global.b32 [ %1 + 0 ], { %0 };\n"
        "}\n" ::"r"(packed),
        "l"(dst), "r"((int)ok)
        : "memory");
  }
}
