// Texture objects over a CUDA array (point and linear filtering,
// normalized coordinates, wrap and clamp addressing, 8-bit texels read as
// normalized floats) and a surface object written and read back.
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void sample(cudaTextureObject_t t, float *out, int n, float scale) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, (i + 0.5f) * scale, 0.5f);
}

__global__ void bytes(cudaTextureObject_t t, float4 *out) {
  out[threadIdx.x] = tex1D<float4>(t, threadIdx.x);
}

__global__ void invert(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) {
    int v;
    surf2Dread(&v, s, x * 4, y);
    surf2Dwrite(-v, s, x * 4, y);
  }
}

__global__ void layers(cudaTextureObject_t t, float *out) {
  out[threadIdx.x] = tex2DLayered<float>(t, threadIdx.x % 2 + 0.5f, 0.5f, threadIdx.x / 2);
}

__global__ void cube(cudaTextureObject_t t, float *out) {
  int f = threadIdx.x;
  float d[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  out[f] = texCubemap<float>(t, d[f][0], d[f][1], d[f][2]);
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorName(e)); return 1; } } while (0)

int main() {
  const int w = 4;
  float texels[w] = {0, 10, 20, 30};
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &fd, w, 1));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, texels, w * sizeof(float), w * sizeof(float), 1, cudaMemcpyHostToDevice));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t point, linear, wrapped;
  CHECK(cudaCreateTextureObject(&point, &rd, &td, nullptr));
  td.filterMode = cudaFilterModeLinear;
  CHECK(cudaCreateTextureObject(&linear, &rd, &td, nullptr));
  td.normalizedCoords = 1;
  td.addressMode[0] = cudaAddressModeWrap;
  CHECK(cudaCreateTextureObject(&wrapped, &rd, &td, nullptr));
  float *d, h[8];
  CHECK(cudaMalloc(&d, sizeof h));
  sample<<<1, 4>>>(point, d, 4, 1);
  CHECK(cudaMemcpy(h, d, 4 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 4; i++) if (h[i] != texels[i]) { printf("point FAILED at %d: %g\n", i, h[i]); return 1; }
  sample<<<1, 8>>>(linear, d, 8, 0.5f);  // x = 0.25, 0.75, ...: a quarter between texels, clamped at the ends
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  float want[8] = {0, 2.5f, 7.5f, 12.5f, 17.5f, 22.5f, 27.5f, 30};
  for (int i = 0; i < 8; i++) if (fabsf(h[i] - want[i]) > 1e-4f) { printf("linear FAILED at %d: %g\n", i, h[i]); return 1; }
  sample<<<1, 8>>>(wrapped, d, 8, 0.125f);  // x = 1/16 ... 15/16 of the width, then wrapping
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  if (fabsf(h[0] - 7.5f) > 1e-4f || fabsf(h[1] - 2.5f) > 1e-4f) { printf("wrap FAILED: %g %g\n", h[0], h[1]); return 1; }

  uchar4 px[2] = {{0, 255, 51, 255}, {255, 0, 102, 0}};
  cudaChannelFormatDesc bd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t barr;
  CHECK(cudaMallocArray(&barr, &bd, 2, 0));
  CHECK(cudaMemcpy2DToArray(barr, 0, 0, px, sizeof px, sizeof px, 1, cudaMemcpyHostToDevice));
  rd.res.array.array = barr;
  cudaTextureDesc nd = {};
  nd.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t norm;
  CHECK(cudaCreateTextureObject(&norm, &rd, &nd, nullptr));
  float4 *d4, h4[2];
  CHECK(cudaMalloc(&d4, sizeof h4));
  bytes<<<1, 2>>>(norm, d4);
  CHECK(cudaMemcpy(h4, d4, sizeof h4, cudaMemcpyDeviceToHost));
  if (h4[0].y != 1 || fabsf(h4[0].z - 0.2f) > 1e-6f || h4[1].x != 1 || h4[1].w != 0) { printf("normalized FAILED\n"); return 1; }

  const int sw = 5, sh = 3;
  int img[sh][sw];
  for (int y = 0; y < sh; y++) for (int x = 0; x < sw; x++) img[y][x] = y * 10 + x;
  cudaChannelFormatDesc id = cudaCreateChannelDesc<int>();
  cudaArray_t sarr;
  CHECK(cudaMallocArray(&sarr, &id, sw, sh, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(sarr, 0, 0, img, sw * 4, sw * 4, sh, cudaMemcpyHostToDevice));
  cudaResourceDesc sd = {};
  sd.resType = cudaResourceTypeArray;
  sd.res.array.array = sarr;
  cudaSurfaceObject_t surf;
  CHECK(cudaCreateSurfaceObject(&surf, &sd));
  invert<<<sh, sw>>>(surf, sw, sh);
  int back[sh][sw];
  CHECK(cudaMemcpy2DFromArray(back, sw * 4, sarr, 0, 0, sw * 4, sh, cudaMemcpyDeviceToHost));
  for (int y = 0; y < sh; y++) for (int x = 0; x < sw; x++)
    if (back[y][x] != -img[y][x]) { printf("surface FAILED at %d,%d: %d\n", x, y, back[y][x]); return 1; }
  float lt[3][2] = {{1, 2}, {3, 4}, {5, 6}};
  cudaArray_t larr;
  CHECK(cudaMalloc3DArray(&larr, &fd, make_cudaExtent(2, 1, 3), cudaArrayLayered));
  cudaMemcpy3DParms cp = {};
  cp.srcPtr = make_cudaPitchedPtr(lt, 2 * sizeof(float), 2, 1);
  cp.dstArray = larr;
  cp.extent = make_cudaExtent(2, 1, 3);
  cp.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&cp));
  rd.res.array.array = larr;
  cudaTextureDesc ld = {};
  cudaTextureObject_t layered;
  CHECK(cudaCreateTextureObject(&layered, &rd, &ld, nullptr));
  layers<<<1, 6>>>(layered, d);
  CHECK(cudaMemcpy(h, d, 6 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 6; i++) if (h[i] != i + 1) { printf("layered FAILED at %d: %g\n", i, h[i]); return 1; }
  float faces[6][2][2];
  for (int f = 0; f < 6; f++) for (int i = 0; i < 4; i++) faces[f][i / 2][i % 2] = f * 10 + i;
  cudaArray_t carr;
  CHECK(cudaMalloc3DArray(&carr, &fd, make_cudaExtent(2, 2, 6), cudaArrayCubemap));
  cp = {};
  cp.srcPtr = make_cudaPitchedPtr(faces, 2 * sizeof(float), 2, 2);
  cp.dstArray = carr;
  cp.extent = make_cudaExtent(2, 2, 6);
  cp.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&cp));
  rd.res.array.array = carr;
  cudaTextureObject_t cubemap;
  CHECK(cudaCreateTextureObject(&cubemap, &rd, &ld, nullptr));
  cube<<<1, 6>>>(cubemap, d);
  CHECK(cudaMemcpy(h, d, 6 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int f = 0; f < 6; f++) if (h[f] != f * 10 + 3) { printf("cubemap FAILED at face %d: %g\n", f, h[f]); return 1; }
  CHECK(cudaDestroyTextureObject(point));
  CHECK(cudaDestroySurfaceObject(surf));
  CHECK(cudaFreeArray(arr));
  printf("texture PASSED\n");
  return 0;
}
