#include <cstdint>
template <typename T> __device__ T warpsum(T v) { for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o); return v; }
extern "C" __global__ void reduce(const float *__restrict__ in, double *out, const long long *__restrict__ li, unsigned long long *uo, int n) {
  extern __shared__ float dyn[];
  float s = 0; double d = 0; long long l = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) { s += in[i]; d += (double)in[i] * in[i]; l += li[i]; }
  s = warpsum(s); d = warpsum(d); l = warpsum(l);
  dyn[threadIdx.x] = s; __syncthreads();
  if (threadIdx.x == 0) { float t = 0; for (int i = 0; i < blockDim.x; i++) t += dyn[i]; atomicAdd((float*)out, t); atomicAdd(uo, (unsigned long long)l); }
#if __CUDA_ARCH__ >= 600
  if (threadIdx.x == 1) atomicAdd(out + 1, d);
#endif
  float4 v = reinterpret_cast<const float4*>(in)[threadIdx.x]; float2 w = reinterpret_cast<const float2*>(in)[threadIdx.x + 1];
  if (v.x + w.y > 1e30f) out[2] = v.y * v.z * v.w * w.x;
}
extern "C" __global__ void asmk(uint32_t *o, const uint32_t *a) {
  uint32_t x = a[threadIdx.x], r, lane, warp;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane)); asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
  asm("bfe.u32 %0, %1, 4, 8;" : "=r"(r) : "r"(x));
  asm("prmt.b32 %0, %1, %2, 0x3210;" : "=r"(r) : "r"(r), "r"(x));
#if __CUDA_ARCH__ >= 700
  uint32_t m; asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(m) : "r"(x)); r += m;
#endif
#if __CUDA_ARCH__ >= 800
  __shared__ uint32_t sm[256];
  uint32_t sa = (uint32_t)__cvta_generic_to_shared(&sm[threadIdx.x]);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(sa), "l"(a + threadIdx.x));
  asm volatile("cp.async.commit_group;"); asm volatile("cp.async.wait_group 0;");
  __syncthreads(); r += sm[threadIdx.x ^ 1];
#endif
  o[threadIdx.x] = r + lane + warp;
}
