// Streams, events, memset, __constant__ and __device__ symbols, dynamic
// shared memory and device printf under ptxkit exec.
#include <cstdio>
#include <cuda_runtime.h>

__constant__ int offset;
__device__ int total;

__global__ void reverse(const int *in, int *out, int n) {
  extern __shared__ int tile[];
  int i = threadIdx.x;
  tile[i] = in[i] + offset;
  __syncthreads();
  out[n - 1 - i] = tile[i];
  atomicAdd(&total, 1);
  if (i == 0) printf("block %d reversed %d elements\n", blockIdx.x, n);
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorName(e)); return 1; } } while (0)

int main() {
  const int n = 128;
  int h[n], r[n];
  for (int i = 0; i < n; i++) h[i] = i;
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemset(dout, 0xff, n * sizeof(int)));
  int off = 1000;
  CHECK(cudaMemcpyToSymbol(offset, &off, sizeof off));
  cudaStream_t s;
  cudaEvent_t a, b;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaMemcpyAsync(din, h, sizeof h, cudaMemcpyHostToDevice, s));
  CHECK(cudaEventRecord(a, s));
  reverse<<<1, n, n * sizeof(int), s>>>(din, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(b, s));
  CHECK(cudaMemcpyAsync(r, dout, sizeof r, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  int t = 0;
  CHECK(cudaMemcpyFromSymbol(&t, total, sizeof t));
  for (int i = 0; i < n; i++)
    if (r[i] != n - 1 - i + off) { printf("FAILED at %d: %d\n", i, r[i]); return 1; }
  if (t != n || ms < 0) { printf("FAILED: total %d, %g ms\n", t, ms); return 1; }
  printf("features PASSED\n");
  return 0;
}
