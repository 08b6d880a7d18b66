// Runtime calls many samples make: device properties, pitched memory and
// 2-D copies, symbols, function attributes, occupancy, registered host
// memory, pointer attributes, warp shuffles, a cluster launch, and a device reset.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__device__ float bias[4];

__global__ void rows(float *p, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float *row = (float *)((char *)p + y * pitch);
    row[x] = row[x] * 2 + bias[y % 4];
  }
}

__global__ void warpsum(const double *in, double *out) {
  double v = in[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

__global__ void clusterRank(unsigned *out) {
  unsigned r, n;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  if (threadIdx.x == 0) out[blockIdx.x] = r * 10 + n;
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorName(e)); return 1; } } while (0)

int main() {
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("%s, compute capability %d.%d, %d SMs\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  size_t freeMem, total;
  CHECK(cudaMemGetInfo(&freeMem, &total));
  if (freeMem > total || total == 0) { printf("FAILED: memory info\n"); return 1; }

  const int w = 100, h = 6;
  float host[h][w], back[h][w];
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) host[y][x] = y * 1000 + x;
  float *d;
  size_t pitch;
  CHECK(cudaMallocPitch(&d, &pitch, w * sizeof(float), h));
  CHECK(cudaMemcpy2D(d, pitch, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  float b[4] = {0.5f, 1.5f, 2.5f, 3.5f};
  CHECK(cudaMemcpyToSymbolAsync(bias, b, sizeof b, 0, cudaMemcpyHostToDevice, 0));
  rows<<<dim3(4, h), 32>>>(d, pitch, w, h);
  CHECK(cudaMemcpy2D(back, w * sizeof(float), d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++)
    if (back[y][x] != host[y][x] * 2 + b[y % 4]) { printf("FAILED: pitched copy at %d,%d\n", x, y); return 1; }

  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, rows));
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, rows, 256, 0));
  if (blocks <= 0 || fa.maxThreadsPerBlock <= 0) { printf("FAILED: occupancy %d\n", blocks); return 1; }

  double *in = (double *)malloc(64 * sizeof(double)), *dsum, sum = 0;
  for (int i = 0; i < 64; i++) in[i] = i * 0.25;
  CHECK(cudaHostRegister(in, 64 * sizeof(double), cudaHostRegisterMapped));
  double *din;
  CHECK(cudaHostGetDevicePointer(&din, in, 0));
  cudaPointerAttributes pa;
  CHECK(cudaPointerGetAttributes(&pa, in));
  if (pa.type != cudaMemoryTypeHost) { printf("FAILED: pointer type %d\n", pa.type); return 1; }
  CHECK(cudaMalloc(&dsum, sizeof(double)));
  CHECK(cudaMemset(dsum, 0, sizeof(double)));
  warpsum<<<1, 64>>>(din, dsum);
  CHECK(cudaMemcpy(&sum, dsum, sizeof sum, cudaMemcpyDeviceToHost));
  if (sum != 63 * 64 / 2 * 0.25) { printf("FAILED: warp sum %g\n", sum); return 1; }
  CHECK(cudaHostUnregister(in));

  unsigned *ranks, hr[4];
  CHECK(cudaMalloc(&ranks, sizeof hr));
  cudaLaunchConfig_t lc = {};
  lc.gridDim = dim3(4);
  lc.blockDim = dim3(32);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2;
  attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
  lc.attrs = attr;
  lc.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&lc, clusterRank, ranks));
  CHECK(cudaMemcpy(hr, ranks, sizeof hr, cudaMemcpyDeviceToHost));
  if (hr[0] != 2 || hr[1] != 12 || hr[3] != 12) { printf("FAILED: cluster ranks %u %u %u %u\n", hr[0], hr[1], hr[2], hr[3]); return 1; }

  CHECK(cudaDeviceReset());
  float *again;
  CHECK(cudaMalloc(&again, 4 * sizeof(float)));
  CHECK(cudaMemcpyToSymbol(bias, b, sizeof b));
  CHECK(cudaFree(again));
  printf("runtime PASSED\n");
  return 0;
}
