// Texture and surface objects as nvcc compiles them, for the emulator
// tests (texture_test.go).
// PTX: nvcc -ptx -arch=sm_90 -o texture_nvcc.ptx texture_nvcc.cu (nvcc 12.5)
extern "C" __global__ void texk(cudaTextureObject_t t, cudaSurfaceObject_t s, float *out, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  float4 v = tex2D<float4>(t, x + 0.5f, y + 0.5f);
  float g = tex1Dfetch<float>(t, x);
  float4 q = tex2Dgather<float4>(t, (x + 1.0f) / w, (y + 1.0f) / gridDim.x, 1);
  out[4 * (y * w + x)] = v.x;
  out[4 * (y * w + x) + 1] = v.y + g;
  out[4 * (y * w + x) + 2] = q.x + q.w;
  unsigned int u;
  surf2Dread(&u, s, x * 4, y, cudaBoundaryModeZero);
  surf2Dwrite(u + x + 10 * y, s, x * 4, y);
  surf2Dread(&u, s, x * 4 + 4 * w, y, cudaBoundaryModeZero);
  int wd;
  asm("txq.width.b32 %0, [%1];" : "=r"(wd) : "l"(t));
  out[4 * (y * w + x) + 3] = (float)(wd + u);
}
