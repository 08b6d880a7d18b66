// Device malloc/free and assert, for the emulator tests (heap_test.go).
// PTX: nvcc -ptx -arch=sm_90 -o heap_assert.ptx heap_assert.cu (nvcc 12.5)
#include <cassert>
#include <cstdio>
extern "C" __global__ void heap_kernel(unsigned long long *out, int n) {
  int t = threadIdx.x;
  int *p = (int *)malloc(n * sizeof(int));
  if (p == nullptr) { out[t] = 0; return; }
  for (int i = 0; i < n; i++) p[i] = t * 100 + i;
  int s = 0;
  for (int i = 0; i < n; i++) s += p[i];
  out[t] = (unsigned long long)s;
  free(p);
}
extern "C" __global__ void assert_kernel(const int *in, int *out) {
  int t = threadIdx.x;
  assert(in[t] >= 0);
  out[t] = in[t] * 2;
}
