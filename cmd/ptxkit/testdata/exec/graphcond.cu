// Conditional graph nodes (CUDA 12.3): if and while nodes whose condition
// kernels set with cudaGraphSetConditional; nodes added with
// cudaGraphAddNode, bodies built by hand and by capture into a graph
// (cudaStreamBeginCaptureToGraph), and a conditional node added by hand
// in the middle of a stream capture.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x)                                                              \
  do {                                                                        \
    cudaError_t e = (x);                                                      \
    if (e != cudaSuccess) {                                                   \
      printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e)); \
      return 1;                                                               \
    }                                                                         \
  } while (0)

__global__ void setIfOdd(const int *v, cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, *v & 1); }
__global__ void bump(int *count) { atomicAdd(count, 1); }
__global__ void countdown(int *v, int *count, cudaGraphConditionalHandle h) {
  *count += 1;
  if (--*v == 0) cudaGraphSetConditional(h, 0);
}
__global__ void whileTest(int *v, cudaGraphConditionalHandle h) {
  if (*v) --*v;
  cudaGraphSetConditional(h, *v);
}

int main() {
  int *v, *count;
  CHECK(cudaMallocManaged(&v, sizeof(int)));
  CHECK(cudaMallocManaged(&count, sizeof(int)));

  // if: A -> B [ C ], built with cudaGraphAddNode.
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle h;
  CHECK(cudaGraphConditionalHandleCreate(&h, graph));
  void *args[2] = {&v, &h};
  cudaGraphNodeParams kp = {cudaGraphNodeTypeKernel};
  kp.kernel.func = (void *)setIfOdd;
  kp.kernel.gridDim = dim3(1);
  kp.kernel.blockDim = dim3(1);
  kp.kernel.kernelParams = args;
  cudaGraphNode_t a, b, c;
  CHECK(cudaGraphAddNode(&a, graph, NULL, 0, &kp));
  cudaGraphNodeParams cp = {cudaGraphNodeTypeConditional};
  cp.conditional.handle = h;
  cp.conditional.type = cudaGraphCondTypeIf;
  cp.conditional.size = 1;
  CHECK(cudaGraphAddNode(&b, graph, &a, 1, &cp));
  void *bargs[1] = {&count};
  kp.kernel.func = (void *)bump;
  kp.kernel.kernelParams = bargs;
  CHECK(cudaGraphAddNode(&c, cp.conditional.phGraph_out[0], NULL, 0, &kp));
  cudaGraphNodeType t;
  CHECK(cudaGraphNodeGetType(a, &t));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, NULL, NULL, 0));
  *count = 0;
  for (int i = 0; i < 4; i++) {
    *v = i;
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaDeviceSynchronize());
  }
  if (*count != 2 || t != cudaGraphNodeTypeKernel) { printf("if: body ran %d times (want 2), node type %d\n", *count, t); return 1; }

  // do-while: the default value 1 is assigned at each launch; the body is
  // captured into the node's graph.
  cudaGraph_t g2;
  CHECK(cudaGraphCreate(&g2, 0));
  cudaGraphConditionalHandle h2;
  CHECK(cudaGraphConditionalHandleCreate(&h2, g2, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams wp = {cudaGraphNodeTypeConditional};
  wp.conditional.handle = h2;
  wp.conditional.type = cudaGraphCondTypeWhile;
  wp.conditional.size = 1;
  cudaGraphNode_t w;
  CHECK(cudaGraphAddNode(&w, g2, NULL, 0, &wp));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamBeginCaptureToGraph(s, wp.conditional.phGraph_out[0], nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
  countdown<<<1, 1, 0, s>>>(v, count, h2);
  CHECK(cudaStreamEndCapture(s, nullptr));
  cudaGraphExec_t exec2;
  CHECK(cudaGraphInstantiate(&exec2, g2, NULL, NULL, 0));
  *count = 0;
  for (int i = 0; i < 2; i++) {
    *v = 10;
    CHECK(cudaGraphLaunch(exec2, 0));
    CHECK(cudaDeviceSynchronize());
  }
  if (*count != 20 || *v != 0) { printf("do-while: body ran %d times (want 20), counter %d\n", *count, *v); return 1; }

  // while: A -> B [ C ] -> D captured from a stream, B added by hand.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st;
  cudaGraph_t g3;
  const cudaGraphNode_t *deps;
  size_t ndeps;
  CHECK(cudaStreamGetCaptureInfo(s, &st, NULL, &g3, &deps, &ndeps));
  cudaGraphConditionalHandle h3;
  CHECK(cudaGraphConditionalHandleCreate(&h3, g3));
  whileTest<<<1, 1, 0, s>>>(v, h3);
  CHECK(cudaStreamGetCaptureInfo(s, &st, NULL, &g3, &deps, &ndeps));
  if (st != cudaStreamCaptureStatusActive || ndeps != 1) { printf("capture info: status %d, %zu dependencies\n", st, ndeps); return 1; }
  cudaGraphNodeParams cw = {cudaGraphNodeTypeConditional};
  cw.conditional.handle = h3;
  cw.conditional.type = cudaGraphCondTypeWhile;
  cw.conditional.size = 1;
  cudaGraphNode_t cn;
  CHECK(cudaGraphAddNode(&cn, g3, deps, ndeps, &cw));
  CHECK(cudaStreamUpdateCaptureDependencies(s, &cn, 1, cudaStreamSetCaptureDependencies));
  bump<<<1, 1, 0, s>>>(count);
  cudaGraph_t g3out;
  CHECK(cudaStreamEndCapture(s, &g3out));
  CHECK(cudaStreamBeginCaptureToGraph(s, cw.conditional.phGraph_out[0], nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
  whileTest<<<1, 1, 0, s>>>(v, h3);
  bump<<<1, 1, 0, s>>>(count);
  CHECK(cudaStreamEndCapture(s, nullptr));
  cudaGraphExec_t exec3;
  CHECK(cudaGraphInstantiate(&exec3, g3out, NULL, NULL, 0));
  *count = 0;
  *v = 0;
  CHECK(cudaGraphLaunch(exec3, 0));
  CHECK(cudaDeviceSynchronize());
  int first = *count;
  *v = 10;
  CHECK(cudaGraphLaunch(exec3, 0));
  CHECK(cudaDeviceSynchronize());
  // Counter 10: A takes it to 9, the body runs 9 times (to 0), D once.
  if (g3out != g3 || first != 1 || *count != 1 + 9 + 1 || *v != 0) {
    printf("while: %d then %d bumps (want 1, then 11), counter %d\n", first, *count, *v);
    return 1;
  }
  printf("conditional graph nodes PASSED\n");
  return 0;
}
