#include <cstdio>
#include <cassert>
extern "C" __global__ void intops(unsigned *o, const unsigned *a, const int *b, unsigned long long *q, long long *sq) {
  unsigned x = a[threadIdx.x], y = a[threadIdx.x + 1], z = a[2];
  int p = b[threadIdx.x], r = b[1];
  o[0] = __popc(x) + __clz(p) + __brev(x) + __ffs(p) + __popcll(q[0]) + __clzll(sq[0]);
  o[1] = __byte_perm(x, y, z) + __funnelshift_l(x, y, z) + __funnelshift_rc(x, y, z);
  o[2] = __vabsdiffu4(x, y) + __vadd2(x, y) + __vsub4(x, y) + __vmaxu4(x, y) + __vcmpgtu2(x, y) + __vavgs2(x,y) + __vsads4(x,y) + __vseteq4(x,y) + __vnegss2(x);
  o[3] = __sad(p, r, z) + __mul24(p, r) + __umulhi(x, y) + __mulhi(p, r) + __umul24(x, y) + __usad(x, y, z);
  o[4] = __hadd(p, r) + __rhadd(p, r) + __uhadd(x, y) + __urhadd(x, y);
  q[1] = __umul64hi(q[0], q[2]) + __brevll(q[3]) + __ffsll(sq[1]);
  sq[2] = __mul64hi(sq[0], sq[1]) + llabs(sq[3]) + min(sq[0], sq[1]) + max(q[0], q[1]);
  o[5] = min(x, y) + max(p, r) + abs(p) + (x >> (y & 31)) + (p >> (r & 31)) + x / (y | 1) + p % (r | 1) + (unsigned)(p / (r | 1));
  unsigned short hs = (unsigned short)x; short ss = (short)p;
  o[6] = (unsigned short)(hs * (unsigned short)y) + (short)(ss / (short)(r|1)) + (unsigned char)(x / (unsigned char)(y | 1));
}
extern "C" __global__ void fops(float *o, const float *a, double *d, const double *e) {
  float x = a[threadIdx.x], y = a[1], z = a[2];
  o[0] = sinf(x) + cosf(y) + __sinf(x) + __cosf(y) + __expf(x) + expf(y) + logf(z) + __logf(z) + log2f(x) + exp2f(y) + __powf(x, y) + powf(x, z);
  o[1] = sqrtf(x) + rsqrtf(y) + __fdividef(x, y) + x / y + __frcp_rn(x) + __fsqrt_rz(y) + __fdiv_rd(x, y) + __fmaf_rz(x, y, z) + fmaf(x, y, z) + __fmul_ru(x, y) + __fadd_rd(x, y) + __fsub_rn(x,y);
  o[2] = fminf(x, y) + fmaxf(y, z) + fabsf(x) + copysignf(x, y) + floorf(x) + ceilf(y) + truncf(z) + rintf(x) + roundf(y) + __saturatef(x) + tanhf(x) + atan2f(x,y) + erff(x) + lgammaf(y) + cbrtf(z) + hypotf(x,y) + tanf(x) + asinf(x) + sinhf(y) + remainderf(x,y) + fmodf(x,y);
  o[3] = (float)(int)x + (float)(unsigned)y + __int2float_rz((int)z) + __float2int_rd(x) + __float2uint_ru(y) + __float2ll_rz(z) + __ull2float_rn((unsigned long long)x) + __float_as_int(x) + __int_as_float((int)y) + isnan(x) + isinf(y) + signbit(z) + isfinite(x);
  d[0] = sqrt(e[0]) + e[1] / e[2] + rsqrt(e[3]) + sin(e[0]) + exp(e[1]) + log(e[2]) + fma(e[0], e[1], e[2]) + __dadd_rz(e[0], e[1]) + __dmul_rn(e[1], e[2]) + __drcp_rn(e[3]) + __ddiv_ru(e[0], e[1]) + __dsqrt_rd(e[2]) + fmin(e[0], e[1]) + fabs(e[2]) + floor(e[3]) + (double)x + (float)e[0] + __double2float_rz(e[1]) + __double2int_rn(e[2]) + __double2ll_ru(e[3]) + __hiloint2double(__double2hiint(e[0]), __double2loint(e[1])) + pow(e[0], e[1]) + atan(e[2]) + erfinv(e[3]) + cbrt(e[0]) + tgamma(e[1]);
}
extern "C" __global__ void atomics(int *i, unsigned *u, unsigned long long *ull, float *f, double *d, long long *ll) {
  atomicAdd(i, 1); atomicSub(i, 2); atomicExch(i, 3); atomicMin(i, 4); atomicMax(i, 5); atomicAnd(i, 6); atomicOr(i, 7); atomicXor(i, 8); atomicCAS(i, 9, 10);
  atomicInc(u, 11); atomicDec(u, 12); atomicAdd(u, 13u); atomicMin(u, 14u);
  atomicAdd(ull, 15ull); atomicCAS(ull, 16ull, 17ull); atomicExch(ull, 18ull); atomicMin(ull, 1ull); atomicMax(ll, 2ll); atomicAnd(ull, 3ull);
  atomicAdd(f, 1.0f); atomicExch(f, 2.0f);
#if __CUDA_ARCH__ >= 600
  atomicAdd(d, 1.0); atomicAdd_block(i, 1); atomicAdd_system(u, 2u); atomicCAS_block(ull, 1ull, 2ull);
#endif
  __shared__ int s[32]; __shared__ double sd[4];
  atomicAdd(&s[threadIdx.x % 32], 1); atomicMax(&s[0], 3); atomicCAS(&s[1], 0, 1);
#if __CUDA_ARCH__ >= 600
  atomicAdd(&sd[0], 2.0);
#endif
  __syncthreads(); i[1] = s[threadIdx.x % 32] + (int)sd[1];
  __threadfence(); __threadfence_block(); __threadfence_system();
}
extern "C" __global__ void warp(int *o, const int *a, float *f, unsigned long long *q) {
  int v = a[threadIdx.x]; float w = f[threadIdx.x]; unsigned long long z = q[threadIdx.x];
  unsigned m = __activemask();
  v += __shfl_sync(m, v, 3) + __shfl_up_sync(m, v, 1) + __shfl_down_sync(m, v, 2, 16) + __shfl_xor_sync(m, v, 4);
  w += __shfl_sync(m, w, 1) + __shfl_xor_sync(m, w, 8);
  z += __shfl_down_sync(m, z, 1);
  unsigned b = __ballot_sync(m, v > 0);
  v += __all_sync(m, v > 1) + __any_sync(m, v > 2) + __uni_sync(m, v > 3) + b;
#if __CUDA_ARCH__ >= 700
  v += __match_any_sync(m, v); int pred; v += __match_all_sync(m, (unsigned long long)z, &pred) + pred;
#endif
#if __CUDA_ARCH__ >= 800
  v += __reduce_add_sync(m, v) + __reduce_min_sync(m, (unsigned)v) + __reduce_or_sync(m, (unsigned)v) + __reduce_max_sync(m, v);
#endif
  __syncwarp(m);
  __syncthreads_count(v > 0); v += __syncthreads_and(v > 1) + __syncthreads_or(v > 2);
  o[threadIdx.x] = v + (int)w + (int)z + clock() + (int)clock64();
}
extern "C" __global__ void misc(int *o, const int *a, cudaTextureObject_t t, cudaSurfaceObject_t s) {
  int v = a[threadIdx.x];
  float x = tex1Dfetch<float>(t, v) + tex2D<float>(t, 0.5f, 0.25f) + tex1D<float>(t, 0.1f) + tex3D<float>(t, 0.1f, 0.2f, 0.3f);
  float4 y = tex2DLod<float4>(t, 0.5f, 0.5f, 1.0f);
  int sv; surf2Dread(&sv, s, 4, 5); surf2Dwrite(v, s, 8, 9); surf1Dwrite(x, s, 4);
  o[threadIdx.x] = (int)x + (int)y.w + sv + __ldg(&a[v]) + __ldcg(&a[1]) + __ldcs(&a[2]) + __ldlu(&a[3]) + __ldcv(&a[4]);
  __stcg(&o[5], v); __stwt(&o[6], v); __stcs(&o[7], v);
  if (v == 17) __trap();
  if (v == 18) asm volatile("exit;");
#if __CUDA_ARCH__ >= 700
  __nanosleep(100);
#endif
  int4 i4 = reinterpret_cast<const int4*>(a)[threadIdx.x]; reinterpret_cast<int4*>(o)[3] = i4;
  double2 d2 = reinterpret_cast<const double2*>(a)[1]; reinterpret_cast<double2*>(o)[4] = d2;
  char c = ((const char*)a)[v]; ((char*)o)[v] = c;
  short2 s2 = ((const short2*)a)[v]; ((short2*)o)[v+1] = s2;
  printf("%d %f\n", v, x);
  int *p = (int*)malloc(16); if (p) { p[0] = v; o[9] = p[0]; free(p); }
  assert(v != 99);
}
__device__ int rec(int n) { return n <= 1 ? 1 : n * rec(n - 1); }
__device__ __noinline__ float callee(float a, int b, double c) { return a * b + c; }
extern "C" __global__ void calls(float *o, int n) {
  o[0] = callee(o[1], n, 2.0) + rec(n);
  int local[64]; for (int i = 0; i < n && i < 64; i++) local[i] = i * n; o[2] = local[n % 64];
  __shared__ float dyn[256]; dyn[threadIdx.x] = o[threadIdx.x]; __syncthreads(); o[3] = dyn[255 - threadIdx.x];
}
#if __CUDA_ARCH__ >= 610
extern "C" __global__ void dp(int *o, const int *a) { o[0] = __dp4a(a[0], a[1], a[2]) + __dp2a_lo(a[0], a[1], (int)a[3]) + (int)__dp4a((unsigned)a[1], (unsigned)a[2], (unsigned)a[3]); }
#endif
