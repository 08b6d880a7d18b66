// An out-of-bounds store: the program must see cudaErrorIllegalAddress.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void oob(int *p) { p[threadIdx.x + 1000000] = 1; }

int main() {
  int *d;
  cudaMalloc(&d, 64);
  oob<<<1, 32>>>(d);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  printf("launch: %s, synchronize: %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync));
  return sync == cudaErrorIllegalAddress ? 0 : 1;
}
