/* Calls ptxkit's libcuda.so.1 through the driver API directly. */
#include <stdio.h>
#include <string.h>
typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUmodule, *CUfunction;
CUresult cuInit(unsigned);
CUresult cuDriverGetVersion(int *);
CUresult cuDeviceGetCount(int *);
CUresult cuDeviceGetName(char *, int, int);
CUresult cuDeviceGetAttribute(int *, int, int);
CUresult cuCtxCreate_v2(CUcontext *, unsigned, int);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
CUresult cuCtxSynchronize(void);
CUresult cuGetErrorName(CUresult, const char **);
CUresult cuGetProcAddress_v2(const char *, void **, int, unsigned long long, int *);
typedef void *CUlinkState;
CUresult cuLinkCreate_v2(unsigned, void *, void **, CUlinkState *);
CUresult cuLinkAddData_v2(CUlinkState, int, void *, size_t, const char *, unsigned, void *, void **);
CUresult cuLinkComplete(CUlinkState, void **, size_t *);
CUresult cuLinkDestroy(CUlinkState);

static const char *ptx =
    ".version 8.5\n.target sm_90\n.address_size 64\n"
    ".visible .entry twice(.param .u64 p, .param .u32 n) {\n"
    " .reg .pred %q; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n]; mov.u32 %r2, %tid.x;\n"
    " setp.ge.u32 %q, %r2, %r1; @%q bra END;\n"
    " mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2;\n"
    " ld.global.u32 %r3, [%rd3]; shl.b32 %r3, %r3, 1; st.global.u32 [%rd3], %r3;\n"
    "END: ret; }\n";

#define CHECK(x) do { CUresult r = (x); if (r) { const char *s = "?"; cuGetErrorName(r, &s); printf("%s: %s\n", #x, s); return 1; } } while (0)

int main(void) {
  int v, n, sm;
  char name[64];
  CHECK(cuInit(0));
  CHECK(cuDriverGetVersion(&v));
  CHECK(cuDeviceGetCount(&n));
  CHECK(cuDeviceGetName(name, sizeof name, 0));
  CHECK(cuDeviceGetAttribute(&sm, 16, 0));
  CUcontext ctx;
  CHECK(cuCtxCreate_v2(&ctx, 0, 0));
  /* The module comes through a JIT link, as Numba makes it. */
  CUlinkState link;
  void *image;
  size_t size;
  char log[256] = "";
  int opts[] = {2 /* CU_JIT_WALL_TIME */, 3 /* CU_JIT_INFO_LOG_BUFFER */, 4 /* _SIZE_BYTES */};
  void *vals[] = {0, log, (void *)(size_t)sizeof log};
  CHECK(cuLinkCreate_v2(3, opts, vals, &link));
  CHECK(cuLinkAddData_v2(link, 1 /* CU_JIT_INPUT_PTX */, (void *)ptx, strlen(ptx) + 1, "twice.ptx", 0, 0, 0));
  CHECK(cuLinkComplete(link, &image, &size));
  if (strstr(log, "linked") == NULL || (size_t)vals[2] != strlen(log) + 1) { printf("link log %s\n", log); return 1; }
  CUmodule mod;
  CHECK(cuModuleLoadData(&mod, image));
  CHECK(cuLinkDestroy(link));
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, "twice"));
  unsigned h[32];
  for (int i = 0; i < 32; i++) h[i] = i;
  CUdeviceptr d;
  CHECK(cuMemAlloc_v2(&d, sizeof h));
  CHECK(cuMemcpyHtoD_v2(d, h, sizeof h));
  unsigned cnt = 32;
  void *args[] = {&d, &cnt};
  CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, args, 0));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH_v2(h, d, sizeof h));
  for (int i = 0; i < 32; i++)
    if (h[i] != 2u * i) { printf("FAILED at %d: %u\n", i, h[i]); return 1; }
  if (cuMemcpyHtoD_v2(d + 64, h, sizeof h) != 1) { printf("a copy past the allocation was accepted\n"); return 1; }
  CUresult cuMemcpy(CUdeviceptr, CUdeviceptr, size_t);
  if (cuMemcpy((CUdeviceptr)h, d + 64, sizeof h) != 1) { printf("a unified copy past the allocation was accepted\n"); return 1; }
  void *fn = 0;
  int status = -1;
  if (cuGetProcAddress_v2("cuNoSuchEntryPoint", &fn, 12050, 0, &status) != 500 || fn || status != 1) {
    printf("unknown entry point: status %d\n", status);
    return 1;
  }
  CHECK(cuGetProcAddress_v2("cuMemAlloc", &fn, 12050, 0, &status));
  /* Bad input: each is an error code, never a crash of this program. */
  CUresult cuMemFree_v2(CUdeviceptr);
  CUresult cuMemsetD32_v2(CUdeviceptr, unsigned, size_t);
  size_t small = 4;
  char packed[16] = {0};
  void *extra[] = {(void *)1 /* BUFFER_POINTER */, packed, (void *)2 /* BUFFER_SIZE */, &small, 0};
  if (cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, 0, extra) != 1) { printf("a parameter buffer of 4 bytes was accepted\n"); return 1; }
  void *extra_bad[] = {(void *)7, packed, 0};
  if (cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, 0, extra_bad) != 1) { printf("an unknown extra marker was accepted\n"); return 1; }
  if (cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, 0, args, 0) != 1) { printf("a block of 2048 threads was accepted\n"); return 1; }
  unsigned char fatbin[64] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
  fatbin[8 + 5] = 1; /* a fatbinary that claims 2^40 bytes */
  CUmodule bad;
  if (cuModuleLoadData(&bad, fatbin) != 200) { printf("a corrupt fatbinary was accepted\n"); return 1; }
  if (cuModuleLoadData(&bad, "garbage") != 200) { printf("garbage was loaded\n"); return 1; }
  if (cuMemcpyHtoD_v2(d, 0, 16) != 1) { printf("a copy from NULL was accepted\n"); return 1; }
  if (cuMemsetD32_v2(d + 120, 0, 4) != 1) { printf("a memset past the allocation was accepted\n"); return 1; }
  if (cuMemFree_v2(d + 8) != 1) { printf("freeing the inside of an allocation was accepted\n"); return 1; }
  /* Virtual memory management: the kernel runs on a cuMemMap-ed range. */
  CUresult cuMemGetAllocationGranularity(size_t *, const void *, int);
  CUresult cuMemCreate(unsigned long long *, size_t, const void *, unsigned long long);
  CUresult cuMemAddressReserve(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
  CUresult cuMemMap(CUdeviceptr, size_t, size_t, unsigned long long, unsigned long long);
  CUresult cuMemSetAccess(CUdeviceptr, size_t, const void *, size_t);
  CUresult cuMemUnmap(CUdeviceptr, size_t);
  CUresult cuMemRelease(unsigned long long);
  CUresult cuMemAddressFree(CUdeviceptr, size_t);
  struct { int type, handles, loc_type, loc_id; void *win32; unsigned char flags[8]; } prop = {1, 0, 1, 0, 0, {0}};
  struct { int loc_type, loc_id, flags; } access = {1, 0, 3};
  size_t gran;
  unsigned long long phys;
  CUdeviceptr va;
  CHECK(cuMemGetAllocationGranularity(&gran, &prop, 0));
  CHECK(cuMemCreate(&phys, gran, &prop, 0));
  CHECK(cuMemAddressReserve(&va, gran, 0, 0, 0));
  CHECK(cuMemMap(va, gran, 0, phys, 0));
  CHECK(cuMemSetAccess(va, gran, &access, 1));
  CHECK(cuMemcpyHtoD_v2(va, h, sizeof h));
  void *vargs[] = {&va, &cnt};
  CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, vargs, 0));
  CHECK(cuMemcpyDtoH_v2(h, va, sizeof h));
  for (int i = 0; i < 32; i++)
    if (h[i] != 4u * i) { printf("mapped memory: FAILED at %d: %u\n", i, h[i]); return 1; }
  CHECK(cuMemUnmap(va, gran));
  CHECK(cuMemRelease(phys));
  CHECK(cuMemAddressFree(va, gran));
  printf("driver %d, %d device(s): %s, %d SMs\ndriver API PASSED\n", v, n, name, sm);
  return 0;
}
