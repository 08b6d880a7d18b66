// Reading a graph back: node parameter getters (kernel, memset, memcpy,
// host, child graph, event), parameters changed from what a getter
// returned, edges added between existing nodes (which reorders the
// launch), edges listed and removed, a cycle refused, and the kernel
// node of a stream capture read back.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add(int *v, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += k;
}

static int hostCalls;
static void CUDART_CB onHost(void *p) { hostCalls += *(int *)p; }

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorName(e)); return 1; } } while (0)
#define EXPECT(c) do { if (!(c)) { printf("FAILED: %s (line %d)\n", #c, __LINE__); return 1; } } while (0)

int main() {
  const int n = 200;
  int *a, h[n];
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMemset(a, 0x7f, n * sizeof(int)));

  // The kernel node is added first, the memset after it; the edge added
  // afterwards makes the memset run first.
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  int nn = n, k = 2;
  void *args[] = {&a, &nn, &k};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)add; kp.gridDim = dim3(4); kp.blockDim = dim3(64); kp.kernelParams = args;
  cudaGraphNode_t kern, set, copy, host, rec;
  CHECK(cudaGraphAddKernelNode(&kern, g, nullptr, 0, &kp));
  cudaMemsetParams mp = {};
  mp.dst = a; mp.value = 0; mp.elementSize = 4; mp.width = n; mp.height = 1;
  CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp));
  CHECK(cudaGraphAddDependencies(g, &set, &kern, 1));
  cudaMemcpy3DParms cp = {};
  cp.srcPtr = make_cudaPitchedPtr(a, n * sizeof(int), n, 1);
  cp.dstPtr = make_cudaPitchedPtr(h, n * sizeof(int), n, 1);
  cp.extent = make_cudaExtent(n * sizeof(int), 1, 1);
  cp.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaGraphAddMemcpyNode(&copy, g, &kern, 1, &cp));
  int step = 1;
  cudaHostNodeParams hp = {onHost, &step};
  CHECK(cudaGraphAddHostNode(&host, g, &copy, 1, &hp));
  cudaEvent_t ev1, ev2;
  CHECK(cudaEventCreate(&ev1));
  CHECK(cudaEventCreate(&ev2));
  CHECK(cudaGraphAddEventRecordNode(&rec, g, &host, 1, ev1));

  // Getters.
  cudaKernelNodeParams got = {};
  CHECK(cudaGraphKernelNodeGetParams(kern, &got));
  EXPECT(got.func == (void *)add && got.gridDim.x == 4 && got.blockDim.x == 64 && got.sharedMemBytes == 0);
  EXPECT(*(int **)got.kernelParams[0] == a && *(int *)got.kernelParams[1] == n && *(int *)got.kernelParams[2] == 2);
  cudaMemsetParams gotSet = {};
  CHECK(cudaGraphMemsetNodeGetParams(set, &gotSet));
  EXPECT(gotSet.dst == a && gotSet.elementSize == 4 && gotSet.width == n && gotSet.height == 1 && gotSet.value == 0);
  cudaMemcpy3DParms gotCopy = {};
  CHECK(cudaGraphMemcpyNodeGetParams(copy, &gotCopy));
  EXPECT(gotCopy.srcPtr.ptr == a && gotCopy.dstPtr.ptr == h && gotCopy.extent.width == n * sizeof(int));
  cudaHostNodeParams gotHost = {};
  CHECK(cudaGraphHostNodeGetParams(host, &gotHost));
  EXPECT(gotHost.fn == onHost && gotHost.userData == &step);
  cudaEvent_t gotEv = nullptr;
  CHECK(cudaGraphEventRecordNodeGetEvent(rec, &gotEv));
  EXPECT(gotEv == ev1);
  CHECK(cudaGraphEventRecordNodeSetEvent(rec, ev2));
  CHECK(cudaGraphEventRecordNodeGetEvent(rec, &gotEv));
  EXPECT(gotEv == ev2);

  // Edges.
  size_t count = 0;
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, &count));
  EXPECT(count == 4);
  cudaGraphNode_t from[8], to[8];
  count = 8;
  CHECK(cudaGraphGetEdges(g, from, to, &count));
  EXPECT(count == 4 && from[0] == set && to[0] == kern && from[1] == kern && to[1] == copy && from[3] == host && to[3] == rec && from[4] == nullptr);
  cudaGraphNode_t deps[4];
  count = 4;
  CHECK(cudaGraphNodeGetDependencies(kern, deps, &count));
  EXPECT(count == 1 && deps[0] == set);
  count = 4;
  CHECK(cudaGraphNodeGetDependentNodes(kern, deps, &count));
  EXPECT(count == 1 && deps[0] == copy);
  CHECK(cudaGraphRemoveDependencies(g, &host, &rec, 1));
  count = 0;
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, &count));
  EXPECT(count == 3);
  EXPECT(cudaGraphRemoveDependencies(g, &host, &rec, 1) != cudaSuccess);

  // The launch runs the memset before the kernel although it was added
  // after it.
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(h[0] == 2 && h[n - 1] == 2 && hostCalls == 1);
  CHECK(cudaEventSynchronize(ev2));

  // Parameters changed through what the getter returned.
  int k2 = 7;
  got.kernelParams[2] = &k2;
  CHECK(cudaGraphKernelNodeSetParams(kern, &got));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(h[0] == 7 && h[n - 1] == 7 && hostCalls == 2);

  // A cycle is refused when the graph is instantiated.
  CHECK(cudaGraphAddDependencies(g, &copy, &set, 1));
  cudaGraphExec_t bad;
  EXPECT(cudaGraphInstantiate(&bad, g, 0) != cudaSuccess);
  cudaGetLastError();
  CHECK(cudaGraphRemoveDependencies(g, &copy, &set, 1));

  // A child graph node gives its graph back.
  cudaGraph_t parent, child = nullptr;
  CHECK(cudaGraphCreate(&parent, 0));
  cudaGraphNode_t childNode;
  CHECK(cudaGraphAddChildGraphNode(&childNode, parent, nullptr, 0, g));
  CHECK(cudaGraphChildGraphNodeGetGraph(childNode, &child));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(child, nullptr, &nodes));
  EXPECT(child != nullptr && nodes == 5);

  // The kernel node of a stream capture.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaGraph_t capturedGraph;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  add<<<3, 32, 16, s>>>(a, n, 5);
  CHECK(cudaStreamEndCapture(s, &capturedGraph));
  cudaGraphNode_t capNode;
  nodes = 1;
  CHECK(cudaGraphGetNodes(capturedGraph, &capNode, &nodes));
  cudaGraphNodeType type;
  CHECK(cudaGraphNodeGetType(capNode, &type));
  EXPECT(nodes == 1 && type == cudaGraphNodeTypeKernel);
  CHECK(cudaGraphKernelNodeGetParams(capNode, &got));
  EXPECT(got.func == (void *)add && got.gridDim.x == 3 && got.blockDim.x == 32 && got.sharedMemBytes == 16 && *(int *)got.kernelParams[2] == 5);
  printf("graph parameters PASSED\n");
  return 0;
}
