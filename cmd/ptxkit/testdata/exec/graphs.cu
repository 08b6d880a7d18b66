// CUDA graphs: one captured from two streams (fork and join through
// events) and one built node by node, each launched several times.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add(int *v, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += k;
}

static int hostCalls;
static void CUDART_CB onHost(void *) { hostCalls++; }

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorName(e)); return 1; } } while (0)

int main() {
  const int n = 256;
  int *a, *b, h[n];
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  CHECK(cudaMemset(a, 0, n * sizeof(int)));
  CHECK(cudaMemset(b, 0, n * sizeof(int)));

  cudaStream_t s1, s2;
  cudaEvent_t fork, join;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  CHECK(cudaEventCreate(&fork));
  CHECK(cudaEventCreate(&join));
  cudaGraph_t captured;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  add<<<2, 128, 0, s1>>>(a, n, 1);
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  add<<<2, 128, 0, s2>>>(b, n, 10);
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  CHECK(cudaLaunchHostFunc(s1, onHost, nullptr));
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s1, &st));
  if (st != cudaStreamCaptureStatusActive) { printf("not capturing\n"); return 1; }
  CHECK(cudaStreamEndCapture(s1, &captured));
  CHECK(cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost));
  if (h[0] != 0 || hostCalls != 0) { printf("captured work ran during capture\n"); return 1; }
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, captured, 0));
  for (int i = 0; i < 3; i++) CHECK(cudaGraphLaunch(exec, s1));
  CHECK(cudaStreamSynchronize(s1));
  CHECK(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
  if (h[n - 1] != 30 || hostCalls != 3) { printf("captured graph FAILED: %d, %d host calls\n", h[n - 1], hostCalls); return 1; }

  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t set, kern, copy;
  cudaMemsetParams mp = {};
  mp.dst = a; mp.value = 5; mp.elementSize = 4; mp.width = n; mp.height = 1;
  CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp));
  int nn = n, k = 2;
  void *args[] = {&a, &nn, &k};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)add; kp.gridDim = dim3(2); kp.blockDim = dim3(128); kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&kern, g, &set, 1, &kp));
  CHECK(cudaGraphAddMemcpyNode1D(&copy, g, &kern, 1, b, a, n * sizeof(int), cudaMemcpyDeviceToDevice));
  size_t count = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  cudaGraphExec_t exec2;
  CHECK(cudaGraphInstantiate(&exec2, g, 0));
  CHECK(cudaGraphLaunch(exec2, s1));
  CHECK(cudaStreamSynchronize(s1));
  CHECK(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
  if (h[7] != 7 || count != 3) { printf("built graph FAILED: %d, %zu nodes\n", h[7], count); return 1; }
  // New kernel parameters for the instantiated graph only, then an update
  // back to the graph's own.
  int k2 = 40;
  void *args2[] = {&a, &nn, &k2};
  kp.kernelParams = args2;
  CHECK(cudaGraphExecKernelNodeSetParams(exec2, kern, &kp));
  CHECK(cudaGraphLaunch(exec2, s1));
  CHECK(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
  if (h[7] != 45) { printf("exec node parameters FAILED: %d\n", h[7]); return 1; }
  mp.value = 6;  // a new memset value for the instantiated graph
  CHECK(cudaGraphExecMemsetNodeSetParams(exec2, set, &mp));
  CHECK(cudaGraphLaunch(exec2, s1));
  CHECK(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
  if (h[7] != 46) { printf("exec memset parameters FAILED: %d\n", h[7]); return 1; }
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(exec2, g, &info));
  CHECK(cudaGraphLaunch(exec2, s1));
  CHECK(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
  if (h[7] != 7) { printf("graph exec update FAILED: %d\n", h[7]); return 1; }
  // A graph that allocates memory, sets it, and frees it.
  cudaGraph_t mg;
  CHECK(cudaGraphCreate(&mg, 0));
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = n * sizeof(int);
  cudaGraphNode_t alloc, set2, freeNode;
  CHECK(cudaGraphAddMemAllocNode(&alloc, mg, nullptr, 0, &ap));
  cudaMemsetParams mp2 = {};
  mp2.dst = ap.dptr; mp2.value = 9; mp2.elementSize = 4; mp2.width = n; mp2.height = 1;
  CHECK(cudaGraphAddMemsetNode(&set2, mg, &alloc, 1, &mp2));
  cudaGraphNode_t cp2;
  CHECK(cudaGraphAddMemcpyNode1D(&cp2, mg, &set2, 1, b, ap.dptr, n * sizeof(int), cudaMemcpyDeviceToDevice));
  CHECK(cudaGraphAddMemFreeNode(&freeNode, mg, &cp2, 1, ap.dptr));
  cudaGraphExec_t exec3;
  CHECK(cudaGraphInstantiate(&exec3, mg, 0));
  CHECK(cudaGraphLaunch(exec3, s1));
  CHECK(cudaStreamSynchronize(s1));
  CHECK(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
  if (h[n - 1] != 9) { printf("memory nodes FAILED: %d\n", h[n - 1]); return 1; }
  // Captured cudaMallocAsync/cudaFreeAsync are the graph's allocation and free
  // nodes: the memory is there at each launch. Without the captured free, the
  // program frees the graph's allocation itself and the next launch has it again.
  for (int withFree = 1; withFree >= 0; withFree--) {
    cudaGraph_t cg;
    int *t;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync((void **)&t, n * sizeof(int), s1));
    CHECK(cudaMemsetAsync(t, 0, n * sizeof(int), s1));
    add<<<1, n, 0, s1>>>(t, n, 5);
    CHECK(cudaMemcpyAsync(b, t, n * sizeof(int), cudaMemcpyDeviceToDevice, s1));
    if (withFree) CHECK(cudaFreeAsync(t, s1));
    CHECK(cudaStreamEndCapture(s1, &cg));
    cudaGraphExec_t ce;
    CHECK(cudaGraphInstantiate(&ce, cg, 0));
    for (int i = 0; i < 2; i++) {
      CHECK(cudaMemset(b, 0, n * sizeof(int)));
      CHECK(cudaGraphLaunch(ce, s1));
      CHECK(cudaStreamSynchronize(s1));
      CHECK(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
      if (h[n - 1] != 5) { printf("captured memory nodes FAILED (free %d, launch %d): %d\n", withFree, i, h[n - 1]); return 1; }
      if (!withFree) CHECK(cudaFree(t));
    }
    CHECK(cudaGraphExecDestroy(ce));
    CHECK(cudaGraphDestroy(cg));
  }
  CHECK(cudaGraphExecDestroy(exec3));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphExecDestroy(exec2));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaGraphDestroy(captured));
  printf("graphs PASSED\n");
  return 0;
}
