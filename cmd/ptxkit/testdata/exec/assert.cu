// A failed device assert: the program must see cudaErrorAssert.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void check(const int *v) { assert(v[threadIdx.x] < 5); }

int main() {
  int h[8] = {0, 1, 2, 3, 4, 5, 6, 7}, *d;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  check<<<1, 8>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  printf("synchronize: %s\n", cudaGetErrorName(e));
  return e == cudaErrorAssert ? 0 : 1;
}
