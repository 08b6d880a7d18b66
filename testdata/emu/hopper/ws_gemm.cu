// A warp-specialized sm_90a GEMM in the style of CUTLASS 3's
// KernelTmaWarpSpecialized: D (f32, M x N, row-major) = A (f16, M x K,
// row-major) x B^T where B is f16 N x K, row-major (both operands K-major,
// CUTLASS's "TN" layout).
//
// One CTA computes a 128 x 64 tile with 384 threads: warpgroup 0 is the
// producer (one elected thread issues the TMA loads), warpgroups 1 and 2 are
// the consumers (64 rows of the tile each). K is walked in 64-wide tiles
// through a STAGES-deep ring of shared-memory buffers guarded by "full" and
// "empty" mbarriers: the producer waits until a stage is empty, arms its full
// barrier with the transaction bytes (expect_tx) and issues two
// cp.async.bulk.tensor loads (128B swizzle); a consumer waits until the stage
// is full, runs four wgmma.mma_async m64n64k16 on 128B-swizzled K-major
// descriptors between wgmma.fence and commit_group/wait_group, and releases
// the stage. setmaxnreg moves registers from the producer to the consumers.
// The epilogue stores the accumulators with st.global.
//
// Compile (nvcc 12.5):
//   nvcc -arch=sm_90a -ptx -o ws_gemm.ptx ws_gemm.cu
// Launch: grid (N/64, M/128), block 384, dynamic shared memory
// STAGES*24 KiB + 1 KiB; arguments: tensor map of A (f16, dims K x M, box
// 64 x 128, 128B swizzle), tensor map of B (f16, dims K x N, box 64 x 64,
// 128B swizzle), D, M, N, K.
#include <cstdint>

#define STAGES 2
#define BM 128
#define BN 64
#define BK 64
#define A_BYTES (BM * BK * 2)
#define B_BYTES (BN * BK * 2)
#define STAGE_BYTES (A_BYTES + B_BYTES)

struct alignas(64) TmaDesc {
  unsigned char bytes[128];
};

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t phase) {
  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "LAB_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
      "@P1 bra DONE;\n"
      "bra LAB_WAIT;\n"
      "DONE:\n"
      "}\n" ::"r"(bar),
      "r"(phase));
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar));
}

__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes));
}

__device__ __forceinline__ void tma_load_2d(uint32_t dst, const TmaDesc *map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

// A shared-memory matrix descriptor for a K-major operand in the 128B
// swizzle layout: 8-row atoms of 1024 bytes (SBO), LBO unused (1).
__device__ __forceinline__ uint64_t make_desc(uint32_t addr) {
  uint64_t d = 0;
  d |= (uint64_t)((addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale_d));
}

extern "C" __global__ void __launch_bounds__(384, 1)
    ws_gemm(const __grid_constant__ TmaDesc tmap_a, const __grid_constant__ TmaDesc tmap_b, const void *a, const void *b,
            float *d, int m, int n, int k) {
  // a and b are the global tensors the maps describe; the kernel reads them
  // only through the maps (they are parameters so that a launch that builds
  // the maps, such as ptxkit run's tmap:...,buf=N, names their buffers).
  extern __shared__ __align__(1024) unsigned char smem[];
  // The tiles need 1024-byte alignment for the 128B swizzle; the barriers
  // live after the stages.
  uint32_t base = (smem_addr(smem) + 1023) & ~1023u;
  uint32_t full = base + STAGES * STAGE_BYTES;
  uint32_t empty = full + STAGES * 8;

  int warpgroup = threadIdx.x / 128;
  int tid = threadIdx.x % 128;
  int tile_n = blockIdx.x * BN;
  int tile_m = blockIdx.y * BM;
  int ktiles = k / BK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full + 8 * s, 1);
      mbar_init(empty + 8 * s, 8);  // lane 0 of each consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    uint32_t elected = 0;
    asm volatile(
        "{\n"
        ".reg .pred P;\n"
        "elect.sync _|P, 0xffffffff;\n"
        "selp.u32 %0, 1, 0, P;\n"
        "}\n"
        : "=r"(elected));
    if (tid / 32 == 0 && elected) {
      for (int kt = 0; kt < ktiles; ++kt) {
        int s = kt % STAGES;
        uint32_t phase = (kt / STAGES) & 1;
        mbar_wait(empty + 8 * s, phase ^ 1);
        uint32_t sa = base + s * STAGE_BYTES;
        mbar_expect_tx(full + 8 * s, STAGE_BYTES);
        tma_load_2d(sa, &tmap_a, full + 8 * s, kt * BK, tile_m);
        tma_load_2d(sa + A_BYTES, &tmap_b, full + 8 * s, kt * BK, tile_n);
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    float acc[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) acc[i] = 0.0f;
    int rows = (warpgroup - 1) * 64;
    for (int kt = 0; kt < ktiles; ++kt) {
      int s = kt % STAGES;
      uint32_t phase = (kt / STAGES) & 1;
      mbar_wait(full + 8 * s, phase);
      uint32_t sa = base + s * STAGE_BYTES + rows * BK * 2;
      uint32_t sb = base + s * STAGE_BYTES + A_BYTES;
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        // Within a 128-byte swizzled row, the next 16 values of K start 32
        // bytes further: advance the descriptors' start addresses.
        wgmma_m64n64k16(acc, make_desc(sa + kk * 32), make_desc(sb + kk * 32), kt > 0 || kk > 0);
      }
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      if (tid % 32 == 0) mbar_arrive(empty + 8 * s);
    }
    // Accumulator element i of lane l in warp w of the warpgroup:
    // row 16w + l/4 + 8*((i/2)%2), column 8*(i/4) + 2*(l%4) + i%2.
    int warp = tid / 32, lane = tid % 32;
    int row = tile_m + rows + 16 * warp + lane / 4;
#pragma unroll
    for (int i = 0; i < 32; i += 4) {
      int col = tile_n + 8 * (i / 4) + 2 * (lane % 4);
      float2 *p0 = reinterpret_cast<float2 *>(d + (size_t)row * n + col);
      float2 *p1 = reinterpret_cast<float2 *>(d + (size_t)(row + 8) * n + col);
      *p0 = make_float2(acc[i], acc[i + 1]);
      *p1 = make_float2(acc[i + 2], acc[i + 3]);
    }
  }
}
