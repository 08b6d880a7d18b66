// Managed memory (allocated and __managed__ variables), zero-copy memory, device new/delete, stream callbacks and a
// cooperative launch with a grid-wide sync.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(int *v, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= k;
}

__global__ void heap(int *out) {
  int *p = new int[4];
  for (int i = 0; i < 4; i++) p[i] = threadIdx.x * i;
  out[threadIdx.x] = p[3];
  delete[] p;
}

// A grid-wide barrier by hand (cooperative_groups needs CCCL headers):
// it only works when every CTA is resident, which a cooperative launch
// guarantees.
__device__ void gridBarrier(unsigned *count, unsigned target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1);
    while (atomicAdd(count, 0) < target) {
    }
  }
  __syncthreads();
}

__global__ void gridsum(const int *in, int *partial, int *out, int n, unsigned *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) partial[blockIdx.x] = 0;
  gridBarrier(count, gridDim.x);
  if (i < n) atomicAdd(&partial[blockIdx.x], in[i]);
  gridBarrier(count, 2 * gridDim.x);
  if (i == 0) {
    int s = 0;
    for (int b = 0; b < gridDim.x; b++) s += partial[b];
    *out = s;
  }
}

__managed__ int hits = 3;
__global__ void hit() { atomicAdd(&hits, 1); }

static int called;
static void CUDART_CB note(void *data) { called += *(int *)data; }

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorName(e)); return 1; } } while (0)

int main() {
  const int n = 256;
  int *m;
  CHECK(cudaMallocManaged(&m, n * sizeof(int)));
  for (int i = 0; i < n; i++) m[i] = i;
  scale<<<2, 128>>>(m, n, 3);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; i++) if (m[i] != 3 * i) { printf("managed FAILED at %d\n", i); return 1; }

  int *z, *zd;
  CHECK(cudaHostAlloc(&z, n * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&zd, z, 0));
  for (int i = 0; i < n; i++) z[i] = 1;
  scale<<<2, 128>>>(zd, n, 5);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; i++) if (z[i] != 5) { printf("zero-copy FAILED at %d\n", i); return 1; }

  int *out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  heap<<<1, 32>>>(out);
  int h[32];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; i++) if (h[i] != 3 * i) { printf("new/delete FAILED at %d\n", i); return 1; }

  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int seven = 7;
  CHECK(cudaLaunchHostFunc(s, note, &seven));
  CHECK(cudaStreamSynchronize(s));
  if (called != 7) { printf("host function FAILED\n"); return 1; }

  int *partial, *sum;
  unsigned *count;
  CHECK(cudaMalloc(&partial, 4 * sizeof(int)));
  CHECK(cudaMalloc(&sum, sizeof(int)));
  CHECK(cudaMalloc(&count, sizeof(unsigned)));
  CHECK(cudaMemset(count, 0, sizeof(unsigned)));
  int nn = n;
  void *args[] = {&m, &partial, &sum, &nn, &count};
  CHECK(cudaLaunchCooperativeKernel((void *)gridsum, 4, 64, args, 0, 0));
  int got = 0;
  CHECK(cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost));
  if (got != 3 * n * (n - 1) / 2) { printf("grid sync FAILED: %d\n", got); return 1; }
  hit<<<1, 32>>>();
  CHECK(cudaDeviceSynchronize());
  hits += 100;  // the host reaches the __managed__ variable directly
  hit<<<1, 2>>>();
  CHECK(cudaDeviceSynchronize());
  if (hits != 137) { printf("__managed__ FAILED: %d\n", hits); return 1; }
  printf("memory PASSED\n");
  return 0;
}
