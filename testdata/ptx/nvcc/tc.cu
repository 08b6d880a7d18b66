// Tensor-core, atomic and texture code for
// comparing ptxkit check with ptxas on nvcc's own PTX.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
namespace cg = cooperative_groups;
using namespace nvcuda;

__global__ void cgReduce(const float *in, float *out, int n) {
  cg::thread_block blk = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(blk);
  float v = 0;
  for (int i = blk.group_index().x * blk.size() + blk.thread_rank(); i < n; i += gridDim.x * blk.size()) v += in[i];
  v = cg::reduce(warp, v, cg::plus<float>());
  cg::coalesced_group active = cg::coalesced_threads();
  if (warp.thread_rank() == 0) atomicAdd(out, v);
  int m = cg::reduce(warp, (int)v, cg::greater<int>());
  if (active.thread_rank() == 0 && m > 3) out[1] = m;
  unsigned b = warp.ballot(v > 0);
  if (warp.any(b & 1)) out[2] = warp.shfl_down(v, 1);
}

__global__ void gridSync(int *data) {
  cg::grid_group g = cg::this_grid();
  data[g.thread_rank()] += 1;
  g.sync();
  data[g.thread_rank()] += data[(g.thread_rank() + 1) % g.size()];
}

__global__ void asyncCopy(const int4 *in, int4 *out) {
  __shared__ int4 buf[256];
  cg::thread_block blk = cg::this_thread_block();
  cg::memcpy_async(blk, buf, in + blockIdx.x * 256, sizeof(buf));
  cg::wait(blk);
  out[blockIdx.x * 256 + threadIdx.x] = buf[255 - threadIdx.x];
}

#if __CUDA_ARCH__ >= 700
__global__ void barrierCopy(const int *in, int *out) {
  __shared__ int buf[256];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(buf + threadIdx.x, in + threadIdx.x, sizeof(int), bar);
  bar.arrive_and_wait();
  out[threadIdx.x] = buf[255 - threadIdx.x];
}
#endif

__global__ void atomics(__half2 *h2, __half *h, __nv_bfloat162 *b2, __nv_bfloat16 *b, double *d,
                        unsigned long long *u, long long *s, float *f, unsigned short *us, float4 *f4, float2 *f2) {
  atomicAdd(h2, __floats2half2_rn(1.f, 2.f));
  atomicAdd(h, __float2half(1.f));
  atomicAdd(d, 1.0);
  atomicMax(s, (long long)threadIdx.x);
  atomicAnd(u, 0xffull);
  atomicCAS(u, 1ull, 2ull);
  atomicExch(f, 3.f);
  atomicInc((unsigned *)u, 7u);
  atomicDec((unsigned *)u, 7u);
#if __CUDA_ARCH__ >= 700
  atomicCAS(us, (unsigned short)1, (unsigned short)2);
#endif
#if __CUDA_ARCH__ >= 800
  atomicAdd(b2, __floats2bfloat162_rn(1.f, 2.f));
  atomicAdd(b, __float2bfloat16(1.f));
#endif
#if __CUDA_ARCH__ >= 900
  atomicAdd(f4, make_float4(1, 2, 3, 4));
  atomicAdd(f2, make_float2(1, 2));
  atomicMin_block((int *)f, 2);
  atomicAdd_system(d, 2.0);
#endif
}

__global__ void halfMath(const __half2 *a, const __nv_bfloat162 *b, __half2 *c, __nv_bfloat162 *d, float *e) {
  int i = threadIdx.x;
  __half2 x = __hfma2(a[i], a[i + 1], __hmul2(a[i], a[i]));
  x = __hmax2(x, h2exp(x));
  c[i] = __hfma2_relu(x, a[i], x);
#if __CUDA_ARCH__ >= 800
  __nv_bfloat162 y = __hfma2(b[i], b[i + 1], b[i]);
  y = __hmin2(y, __hmax2_nan(y, b[i]));
  d[i] = h2exp2(y);
  e[i] = __bfloat162float(__hadd(__low2bfloat16(y), __high2bfloat16(y))) + __half2float(hsqrt(__low2half(x)));
#endif
}

#if __CUDA_ARCH__ >= 700
__global__ void wmmaHalf(const half *a, const half *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
#endif
#if __CUDA_ARCH__ >= 750
__global__ void wmmaInt(const signed char *a, const signed char *b, int *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::fill_fragment(fc, 0);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc, true);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_col_major);
}
#endif
#if __CUDA_ARCH__ >= 800
__global__ void wmmaAmpere(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const float *t, const double *da, double *dc, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::fill_fragment(fc, 0.f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> tc;
  wmma::load_matrix_sync(ta, t, 16);
  wmma::load_matrix_sync(tb, t, 16);
  for (int i = 0; i < ta.num_elements; i++) ta.x[i] = wmma::__float_to_tf32(ta.x[i]);
  wmma::fill_fragment(tc, 0.f);
  wmma::mma_sync(tc, ta, tb, tc);
  wmma::store_matrix_sync(c, tc, 16, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> xa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> xb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> xc;
  wmma::load_matrix_sync(xa, da, 8);
  wmma::load_matrix_sync(xb, da, 8);
  wmma::fill_fragment(xc, 0.0);
  wmma::mma_sync(xc, xa, xb, xc);
  wmma::store_matrix_sync(dc, xc, 8, wmma::mem_row_major);
}

__global__ void mmaAsm(const unsigned *a, float *d) {
  __shared__ unsigned short sm[16 * 16];
  sm[threadIdx.x] = threadIdx.x;
  __syncthreads();
  unsigned r0, r1, r2, r3, b0, b1;
  unsigned addr = (unsigned)__cvta_generic_to_shared(sm + (threadIdx.x % 16) * 16);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(addr));
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(b0), "r"(b1));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(b0), "r"(b1));
  int i0 = 0, i1 = 0, i2 = 0, i3 = 0;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(i0), "+r"(i1), "+r"(i2), "+r"(i3) : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(b0), "r"(b1));
#if __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(addr), "r"(r0), "r"(r1));
  unsigned m;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(m) : "r"(r0));
  i0 += m;
#endif
  d[threadIdx.x] = c0 + c1 + c2 + c3 + i0 + i1 + i2 + i3;
}
#endif

__global__ void textures(cudaTextureObject_t t, cudaSurfaceObject_t s, float *out) {
  float x = threadIdx.x + 0.5f;
  float4 v = tex2D<float4>(t, x, 0.5f);
  float w = tex1Dfetch<float>(t, threadIdx.x);
  float l = tex2DLod<float>(t, x, 0.5f, 1.0f);
  float g = tex2DGrad<float>(t, x, 0.5f, make_float2(1, 0), make_float2(0, 1));
  float4 q = tex2Dgather<float4>(t, x, 0.5f, 1);
  surf2Dwrite(v.x + w + l + g + q.y, s, threadIdx.x * 4, 0);
  float r;
  surf2Dread(&r, s, threadIdx.x * 4, 1, cudaBoundaryModeClamp);
  out[threadIdx.x] = r;
}

__global__ void warpStuff(unsigned *o, const float *f) {
  unsigned m = __activemask();
  o[0] = __ballot_sync(m, f[threadIdx.x] > 0);
  o[1] = __match_any_sync(m, threadIdx.x & 3);
  int pred;
  o[2] = __match_all_sync(m, 7, &pred) + pred;
#if __CUDA_ARCH__ >= 800
  o[3] = __reduce_add_sync(m, threadIdx.x);
#endif
  __nanosleep(100);
  o[4] = __uhadd(o[0], o[1]) + __vabsdiffu4(o[0], o[2]) + __byte_perm(o[0], o[1], 0x3210) + __funnelshift_l(o[0], o[1], 5);
  o[5] = __fns(m, 0, 2) + __brev(m) + __clzll((long long)m) + __ffs(m) + __popcll(m) + __dp4a((int)m, (int)m, 1);
  __syncwarp(m);
}
