#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) C[i] = A[i] + B[i] + 0.0f;
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s failed: %s (%s)\n", #x, cudaGetErrorString(e), cudaGetErrorName(e)); exit(EXIT_FAILURE); } } while (0)

int main(void) {
  int numElements = 50000;
  size_t size = numElements * sizeof(float);
  printf("[Vector addition of %d elements]\n", numElements);
  float *h_A = (float *)malloc(size), *h_B = (float *)malloc(size), *h_C = (float *)malloc(size);
  for (int i = 0; i < numElements; ++i) { h_A[i] = rand() / (float)RAND_MAX; h_B[i] = rand() / (float)RAND_MAX; }
  float *d_A, *d_B, *d_C;
  CHECK(cudaMalloc((void **)&d_A, size));
  CHECK(cudaMalloc((void **)&d_B, size));
  CHECK(cudaMalloc((void **)&d_C, size));
  printf("Copy input data from the host memory to the CUDA device\n");
  CHECK(cudaMemcpy(d_A, h_A, size, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_B, h_B, size, cudaMemcpyHostToDevice));
  int threadsPerBlock = 256;
  int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
  printf("CUDA kernel launch with %d blocks of %d threads\n", blocksPerGrid, threadsPerBlock);
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
  CHECK(cudaGetLastError());
  printf("Copy output data from the CUDA device to the host memory\n");
  CHECK(cudaMemcpy(h_C, d_C, size, cudaMemcpyDeviceToHost));
  for (int i = 0; i < numElements; ++i) {
    if (fabs(h_A[i] + h_B[i] - h_C[i]) > 1e-5) { fprintf(stderr, "Result verification failed at element %d!\n", i); exit(EXIT_FAILURE); }
  }
  printf("Test PASSED\n");
  CHECK(cudaFree(d_A)); CHECK(cudaFree(d_B)); CHECK(cudaFree(d_C));
  free(h_A); free(h_B); free(h_C);
  printf("Done\n");
  return 0;
}
