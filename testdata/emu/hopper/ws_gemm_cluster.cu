// A warp-specialized sm_90a GEMM with a 2x1 thread-block cluster and a TMA
// store epilogue, in the style of CUTLASS 3's KernelTmaWarpSpecialized with
// ClusterShape 2x1x1 and a TMA epilogue: D (bf16, M x N, row-major) =
// A (bf16, M x K, row-major) x B^T with B bf16 N x K row-major.
//
// One CTA computes a 128 x 128 tile with 384 threads: warpgroup 0 is the
// producer, warpgroups 1 and 2 the consumers (64 rows each, m64n128k16).
// The two CTAs of a cluster compute vertically adjacent tiles and share the
// B tile: each loads its own A tile and one half of B with
// cp.async.bulk.tensor ... .multicast::cluster (mask 0b11, with an L2 cache
// hint), so each CTA's full barrier collects bytes from both CTAs. A stage
// is free again only when the consumers of both CTAs have released it, so
// the consumers arrive on the empty barrier of each CTA of the cluster
// (mapa + mbarrier.arrive.release.cluster.shared::cluster). Consumers keep
// one wgmma group in flight (wait_group 1) and release the stage of the
// previous k-tile. Waits use try_wait.parity with a suspend-time hint. The
// epilogue packs the accumulators to bf16 (cvt.rn.bf16x2.f32), writes them
// into two 128B-swizzled 128 x 64 shared tiles with stmatrix.x4, syncs the
// consumer warpgroups on named barrier 1 and stores the tiles with two TMA
// stores. griddepcontrol, prefetch.tensormap, setmaxnreg, elect.sync and a
// cluster barrier around the kernel are there as CUTLASS has them.
//
// Compile (nvcc 12.5):
//   nvcc -arch=sm_90a -ptx -o ws_gemm_cluster.ptx ws_gemm_cluster.cu
// Launch: grid (M/128, N/128) in clusters of (2,1,1), block 384, dynamic
// shared memory 3*32 KiB + 32 KiB + 1 KiB; arguments: tensor maps of A
// (bf16, dims K x M, box 64 x 128), B (bf16, dims K x N, box 64 x 64) and D
// (bf16, dims N x M, box 64 x 128), all 128B swizzle; A, B, D; K.
#include <cstdint>

#define STAGES 3
#define BM 128
#define BN 128
#define BK 64
#define A_BYTES (BM * BK * 2)
#define B_BYTES (BN * BK * 2)
#define STAGE_BYTES (A_BYTES + B_BYTES)
#define C_BYTES (BM * BN * 2)

struct alignas(64) TmaDesc {
  unsigned char bytes[128];
};

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t phase) {
  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "LAB_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1, %2;\n"
      "@P1 bra DONE;\n"
      "bra LAB_WAIT;\n"
      "DONE:\n"
      "}\n" ::"r"(bar),
      "r"(phase), "r"(0x989680));
}

// Arrive on the mbarrier at the same offset as bar in CTA cta of the cluster.
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t cta) {
  asm volatile(
      "{\n"
      ".reg .b32 remAddr32;\n"
      "mapa.shared::cluster.u32 remAddr32, %0, %1;\n"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remAddr32];\n"
      "}\n" ::"r"(bar),
      "r"(cta)
      : "memory");
}

__device__ __forceinline__ void tma_load(uint32_t dst, const TmaDesc *map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void tma_load_multicast(uint32_t dst, const TmaDesc *map, uint32_t bar, int c0, int c1,
                                                   uint16_t mask, uint64_t hint) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint"
      " [%0], [%1, {%3, %4}], [%2], %5, %6;" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1), "h"(mask), "l"(hint)
      : "memory");
}

__device__ __forceinline__ uint64_t make_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 | (uint64_t)1 << 62;
}

__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "r"(scale_d));
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

extern "C" __global__ void __launch_bounds__(384, 1) __cluster_dims__(2, 1, 1)
    ws_gemm_cluster(const __grid_constant__ TmaDesc tmap_a, const __grid_constant__ TmaDesc tmap_b,
                    const __grid_constant__ TmaDesc tmap_d, const void *a, const void *b, void *d, int k) {
  extern __shared__ __align__(1024) unsigned char smem[];
  uint32_t base = (smem_addr(smem) + 1023) & ~1023u;
  uint32_t ctile = base + STAGES * STAGE_BYTES;  // two 128 x 64 halves of D
  uint32_t full = ctile + C_BYTES;
  uint32_t empty = full + STAGES * 8;

  int warpgroup = threadIdx.x / 128;
  int tid = threadIdx.x % 128;
  uint32_t rank = cluster_rank();
  int tile_m = blockIdx.x * BM;
  int tile_n = blockIdx.y * BN;
  int ktiles = k / BK;

  if (threadIdx.x == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmap_a) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmap_b) : "memory");
    for (int s = 0; s < STAGES; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(full + 8 * s), "r"(1));
      // lane 0 of each consumer warp of both CTAs
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(empty + 8 * s), "r"(16));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("griddepcontrol.wait;" ::: "memory");
  cluster_sync();

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
      uint64_t hint;
      asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(hint));
      for (int kt = 0; kt < ktiles; ++kt) {
        int s = kt % STAGES;
        uint32_t phase = (kt / STAGES) & 1;
        mbar_wait(empty + 8 * s, phase ^ 1);
        uint32_t sa = base + s * STAGE_BYTES, sb = sa + A_BYTES;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full + 8 * s),
                     "r"(STAGE_BYTES));
        tma_load(sa, &tmap_a, full + 8 * s, kt * BK, tile_m);
        // This CTA's half of B, to the same offset in both CTAs.
        tma_load_multicast(sb + rank * (B_BYTES / 2), &tmap_b, full + 8 * s, kt * BK, tile_n + rank * (BN / 2), 0x3,
                           hint);
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    float acc[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
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
        wgmma_m64n128k16(acc, make_desc(sa + kk * 32), make_desc(sb + kk * 32), kt > 0 || kk > 0);
      }
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      // The previous k-tile's group is complete: release its stage in both CTAs.
      if (kt > 0 && tid % 32 == 0) {
        int ps = (kt - 1) % STAGES;
        mbar_arrive_cluster(empty + 8 * ps, 0);
        mbar_arrive_cluster(empty + 8 * ps, 1);
      }
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (ktiles > 0 && tid % 32 == 0) {
      int ps = (ktiles - 1) % STAGES;
      mbar_arrive_cluster(empty + 8 * ps, 0);
      mbar_arrive_cluster(empty + 8 * ps, 1);
    }

    // Epilogue: accumulator element i of lane l in warp w is row
    // 16w + l/4 + 8((i/2)%2), column 8(i/4) + 2(l%4) + i%2 of this
    // warpgroup's 64 rows. Column group c (8 columns) of rows g and g+8 and
    // of c+1 are the four 8x8 matrices of one stmatrix.x4; lane l gives the
    // address of row l%8 of matrix l/8.
    int warp = tid / 32, lane = tid % 32;
#pragma unroll
    for (int c = 0; c < 16; c += 2) {
      uint32_t r0 = pack_bf16x2(acc[4 * c], acc[4 * c + 1]);
      uint32_t r1 = pack_bf16x2(acc[4 * c + 2], acc[4 * c + 3]);
      uint32_t r2 = pack_bf16x2(acc[4 * c + 4], acc[4 * c + 5]);
      uint32_t r3 = pack_bf16x2(acc[4 * c + 6], acc[4 * c + 7]);
      int mi = lane / 8;
      int row = rows + 16 * warp + (mi % 2) * 8 + lane % 8;
      int col = 8 * (c + mi / 2);
      int half = col / 64, chunk = (col % 64) / 8;
      uint32_t addr = ctile + half * (C_BYTES / 2) + row * 128 + ((chunk ^ (row % 8)) * 16);
      asm volatile("stmatrix.sync.aligned.x4.m8n8.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0),
                   "r"(r1), "r"(r2), "r"(r3)
                   : "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync 1, 256;" ::: "memory");
    if (warpgroup == 1 && tid == 0) {
      for (int h = 0; h < 2; ++h) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(&tmap_d),
                     "r"(ctile + h * (C_BYTES / 2)), "r"(tile_n + 64 * h), "r"(tile_m)
                     : "memory");
      }
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  }
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  // Neither CTA may exit while the other can still multicast into it or
  // arrive on its barriers.
  cluster_sync();
}
