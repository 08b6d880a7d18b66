#include <cstdio>
extern __device__ int g2;
__device__ int f2(int x);
// A module variable holding the address of a function of the other unit.
__device__ int (*fp)(int) = f2;
__global__ void k1(int *p) { if (threadIdx.x == 0) printf("k1 from unit 1\n"); p[threadIdx.x] = fp(threadIdx.x) + g2; }
int main() { int *d, h[32]; cudaMalloc(&d, 128); k1<<<1,32>>>(d); cudaMemcpy(h, d, 128, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 32; i++) if (h[i] != 3*i+7) { printf("FAILED %d %d\n", i, h[i]); return 1; }
  printf("separate compilation PASSED\n"); return 0; }
