//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeDriver is a stand-in for libcuda.so.1 with the entry points
// gpu-diff uses. Its "GPU" runs every kernel as: thread t of the grid
// stores the u32 t + base at out[t], out being the first parameter (a
// buffer) and base the second (a u32), within the buffer's size.
// cuModuleGetFunction fails for a kernel named unknown_to_gpu;
// cuCtxSynchronize never returns after a kernel named hang, nor cuInit
// while FAKE_CUDA_HANG_INIT is set;
// cuLaunchKernelEx fails unless its one attribute is a cluster dimension
// of at least 2 CTAs; a launch with more than 48 KiB of dynamic shared
// memory fails unless cuFuncSetAttribute allowed that much.
const fakeDriver = `
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct { void *p; size_t n; } allocs[64];
static char kernel[256];

int cuInit(unsigned flags) {
	while (getenv("FAKE_CUDA_HANG_INIT")) usleep(10000);
	return 0;
}
int cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return ordinal == 0 ? 0 : 101; }
int cuCtxCreate_v2(void **ctx, unsigned flags, int dev) { *ctx = (void *)1; return 0; }
int cuCtxDestroy_v2(void *ctx) { return 0; }
int cuModuleLoadData(void **mod, const void *image) { *mod = (void *)2; return strstr(image, ".entry") ? 0 : 218; }
int cuModuleUnload(void *mod) { return 0; }
int cuModuleGetFunction(void **fn, void *mod, const char *name) {
	if (strcmp(name, "unknown_to_gpu") == 0) return 500;
	strncpy(kernel, name, sizeof kernel - 1);
	*fn = (void *)3;
	return 0;
}
int cuMemAlloc_v2(uint64_t *p, size_t n) {
	for (int i = 0; i < 64; i++) if (!allocs[i].p) {
		allocs[i].p = calloc(1, n); allocs[i].n = n; *p = (uint64_t)(uintptr_t)allocs[i].p; return 0;
	}
	return 2;
}
int cuMemFree_v2(uint64_t p) {
	for (int i = 0; i < 64; i++) if (allocs[i].p == (void *)(uintptr_t)p) { free(allocs[i].p); allocs[i].p = 0; }
	return 0;
}
int cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t n) { memcpy((void *)(uintptr_t)dst, src, n); return 0; }
int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n) { memcpy(dst, (void *)(uintptr_t)src, n); return 0; }
static int maxShared = 48 << 10;
int cuFuncSetAttribute(void *fn, int attr, int value) { if (attr == 8) maxShared = value; return 0; }
static int launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                  unsigned shared, void **params) {
	if (shared > (unsigned)maxShared) return 1;
	uint32_t *out = (uint32_t *)(uintptr_t)*(uint64_t *)params[0];
	uint32_t base = *(uint32_t *)params[1];
	size_t n = 0;
	for (int i = 0; i < 64; i++) if (allocs[i].p == out) n = allocs[i].n / 4;
	size_t threads = (size_t)gx * gy * gz * bx * by * bz;
	for (size_t t = 0; t < threads && t < n; t++) out[t] = (uint32_t)t + base;
	return 0;
}
int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void *stream, void **params, void **extra) {
	return launch(gx, gy, gz, bx, by, bz, shared, params);
}
typedef struct { unsigned id; char pad[4]; unsigned value[16]; } attribute;
typedef struct {
	unsigned gx, gy, gz, bx, by, bz, shared;
	void *stream;
	attribute *attrs;
	unsigned numAttrs;
} config;
int cuLaunchKernelEx(const config *c, void *fn, void **params, void **extra) {
	if (c->numAttrs != 1 || c->attrs[0].id != 4 || c->attrs[0].value[0] * c->attrs[0].value[1] * c->attrs[0].value[2] < 2) return 1;
	return launch(c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->shared, params);
}
int cuCtxSynchronize(void) {
	while (strcmp(kernel, "hang") == 0) usleep(10000);
	return 0;
}
int cuGetErrorString(int res, const char **s) { *s = res == 500 ? "named symbol not found" : "fake error"; return 0; }
`

// fillPTX stores gid + base at out[gid] (fill: what the fake GPU does),
// or one more than that for gid 3 (fill_skew).
const fillPTX = `.version 8.5
.target sm_90
.address_size 64
.visible .entry fill(.param .u64 out, .param .u32 base)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [base];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.u32 %r5, %r3, %r4, %r2;
	add.u32 %r6, %r5, %r1;
	mul.wide.u32 %rd2, %r5, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	ret;
}
.visible .entry fill_skew(.param .u64 out, .param .u32 base)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<8>;
	.reg .pred %p1;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [base];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.u32 %r5, %r3, %r4, %r2;
	add.u32 %r6, %r5, %r1;
	mul.wide.u32 %rd2, %r5, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	setp.eq.u32 %p1, %r5, 3;
	add.u32 %r6, %r6, 1;
	@%p1 st.global.u32 [%rd3], %r6;
	ret;
}
.visible .entry unknown_to_gpu(.param .u64 out, .param .u32 base)
{
	ret;
}
`

// loaderOnce builds cmd/ptxkit-cuda, the driver loader gpu-diff runs, once
// per test binary.
var loaderOnce struct {
	sync.Once
	path, err string
}

// useCUDALoader points gpu-diff at a loader built from this tree, or skips
// the test when the go command is missing.
func useCUDALoader(t *testing.T) {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not found: the driver loader ptxkit-cuda cannot be built")
	}
	loaderOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ptxkit-cuda")
		if err != nil {
			loaderOnce.err = err.Error()
			return
		}
		p := filepath.Join(dir, "ptxkit-cuda")
		if out, err := exec.Command(goCmd, "build", "-o", p, "../ptxkit-cuda").CombinedOutput(); err != nil {
			loaderOnce.err = fmt.Sprintf("%v\n%s", err, out)
			return
		}
		loaderOnce.path = p
	})
	if loaderOnce.err != "" {
		t.Fatalf("building ptxkit-cuda: %s", loaderOnce.err)
	}
	t.Setenv("PTXKIT_CUDA_LOADER", loaderOnce.path)
}

// fakeDriverLib builds the fake driver with gcc in the test's temporary
// folder, or skips the test when gcc is missing; gpu-diff is pointed at a
// loader built from this tree.
func fakeDriverLib(t *testing.T) string {
	t.Helper()
	useCUDALoader(t)
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: the fake CUDA driver cannot be built")
	}
	dir := t.TempDir()
	c := filepath.Join(dir, "fakecuda.c")
	if err := os.WriteFile(c, []byte(fakeDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "libcuda.so.1")
	if out, err := exec.Command(gcc, "-shared", "-fPIC", "-o", lib, c).CombinedOutput(); err != nil {
		t.Fatalf("building the fake driver: %v\n%s", err, out)
	}
	return lib
}

func TestGPUDiffAgrees(t *testing.T) {
	t.Setenv("PTXKIT_LIBCUDA", fakeDriverLib(t))
	src := writeFile(t, "fill.ptx", fillPTX)
	code, out, errs := runCmd(t, "", "gpu-diff", src, "--kernel", "fill", "--grid", "2", "--block", "32", "--arg", "buf:256", "--arg", "5")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(out, "arg0: 256 bytes agree") {
		t.Errorf("output:\n%s", out)
	}
}

// TestGPUDiffClusterAndLargeShared launches clusters of 2 with 64 KiB of
// dynamic shared memory: the fake driver fails unless the cluster
// dimension and the shared-memory limit reach it as cuda.h lays them out.
func TestGPUDiffClusterAndLargeShared(t *testing.T) {
	t.Setenv("PTXKIT_LIBCUDA", fakeDriverLib(t))
	src := writeFile(t, "fill.ptx", fillPTX)
	code, out, errs := runCmd(t, "", "gpu-diff", src, "--kernel", "fill", "--grid", "4", "--block", "32", "--cluster", "2",
		"--shared-bytes", "65536", "--arg", "buf:512", "--arg", "1")
	if code != exitOK || !strings.Contains(out, "arg0: 512 bytes agree") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

func TestGPUDiffNamesFirstDifferenceAndLastStore(t *testing.T) {
	t.Setenv("PTXKIT_LIBCUDA", fakeDriverLib(t))
	src := writeFile(t, "fill.ptx", fillPTX)
	code, out, errs := runCmd(t, "", "gpu-diff", src, "--kernel", "fill_skew", "--grid", "2", "--block", "32", "--arg", "buf:256", "--arg", "5")
	if code != exitDiffer {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitDiffer, out, errs)
	}
	// Thread 3 stores 3+5 = 8, then 9; the fake GPU leaves 8. Byte 12 is
	// the low byte of out[3], the only one that differs.
	for _, want := range []string{
		"arg0: 1 of 256 bytes differ; the first is byte 12: emulator 0x09, GPU 0x08",
		"last stored on the emulator by st.global.u32 at " + src + ":37:2, thread (3,0,0) of CTA (0,0,0)", // the predicated store
		"(2 stores to the byte)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestGPUDiffDriverError(t *testing.T) {
	t.Setenv("PTXKIT_LIBCUDA", fakeDriverLib(t))
	src := writeFile(t, "fill.ptx", fillPTX)
	code, _, errs := runCmd(t, "", "gpu-diff", src, "--kernel", "unknown_to_gpu", "--arg", "buf:16", "--arg", "0")
	if code != exitUsage || !strings.Contains(errs, "cuModuleGetFunction unknown_to_gpu: CUDA error 500: named symbol not found") {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
}

func TestGPUDiffWithoutDriver(t *testing.T) {
	useCUDALoader(t)
	t.Setenv("PTXKIT_LIBCUDA", filepath.Join(t.TempDir(), "libcuda.so.1"))
	src := writeFile(t, "fill.ptx", fillPTX)
	code, out, errs := runCmd(t, "", "gpu-diff", src, "--kernel", "fill", "--arg", "buf:16", "--arg", "0")
	if code != exitUsage || !strings.Contains(errs, "no GPU to compare with: no usable CUDA driver") || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errs)
	}
}

// TestGPUDiffGivesTheGPUInitialBuffers checks that the GPU receives each
// buffer's initial contents, not what the emulator stored into it: the
// kernel also stores 1 to out[gid+32], which the fake GPU does not, so
// byte 128 must differ between the emulator (1) and the GPU (the fill).
func TestGPUDiffGivesTheGPUInitialBuffers(t *testing.T) {
	t.Setenv("PTXKIT_LIBCUDA", fakeDriverLib(t))
	src := writeFile(t, "fill2.ptx", `.version 8.5
.target sm_90
.address_size 64
.visible .entry fill_twice(.param .u64 out, .param .u32 base)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [base];
	mov.u32 %r2, %tid.x;
	add.u32 %r6, %r2, %r1;
	mul.wide.u32 %rd2, %r2, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	st.global.u32 [%rd3+128], 1;
	ret;
}
`)
	code, out, errs := runCmd(t, "", "gpu-diff", src, "--block", "32", "--arg", "buf:256:fill=7", "--arg", "5")
	if code != exitDiffer {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitDiffer, out, errs)
	}
	want := "arg0: 128 of 256 bytes differ; the first is byte 128: emulator 0x01, GPU 0x07"
	if !strings.Contains(out, want) || !strings.Contains(out, "(1 stores to the byte)") {
		t.Errorf("output lacks %q and the one store:\n%s", want, out)
	}
}

// TestGPUDiffGPUTimeout: a kernel that never finishes on the GPU, and a
// driver that never initialises, are abandoned after --gpu-timeout and
// reported with exit status 2, the emulator's side having run.
func TestGPUDiffGPUTimeout(t *testing.T) {
	t.Setenv("PTXKIT_LIBCUDA", fakeDriverLib(t))
	src := writeFile(t, "hang.ptx", strings.Replace(fillPTX, "entry fill(", "entry hang(", 1))
	start := time.Now()
	code, out, errs := runCmd(t, "", "gpu-diff", src, "--kernel", "hang", "--gpu-timeout", "300ms", "--block", "4", "--arg", "buf:16", "--arg", "0")
	want := "ptxkit gpu-diff: on the GPU: the launch did not finish within 300ms (--gpu-timeout)"
	if code != exitUsage || !strings.Contains(errs, want) || out != "" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and %q", code, out, errs, exitUsage, want)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}

	t.Setenv("FAKE_CUDA_HANG_INIT", "1")
	code, _, errs = runCmd(t, "", "gpu-diff", src, "--kernel", "fill", "--gpu-timeout", "200ms", "--block", "4", "--arg", "buf:16", "--arg", "0")
	if want := "opening the driver did not finish within 200ms"; code != exitUsage || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant %q", code, errs, want)
	}
}

func TestGPUDiffTimeoutFlag(t *testing.T) {
	code, _, errs := runCmd(t, "", "gpu-diff", "x.ptx", "--gpu-timeout", "-1s")
	if code != exitUsage || !strings.Contains(errs, "gpu-timeout") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestGPUDiffWithoutLoader: without ptxkit-cuda there is no GPU to compare
// with, said before the emulator runs.
func TestGPUDiffWithoutLoader(t *testing.T) {
	t.Setenv("PTXKIT_CUDA_LOADER", "")
	t.Setenv("PATH", t.TempDir())
	src := writeFile(t, "fill.ptx", fillPTX)
	code, out, errs := runCmd(t, "", "gpu-diff", src, "--kernel", "fill", "--arg", "buf:16", "--arg", "0")
	want := "ptxkit gpu-diff: no GPU to compare with: no usable CUDA driver: the driver loader ptxkit-cuda is not installed"
	if code != exitUsage || !strings.HasPrefix(errs, want) || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestCommandsStayStatic: only the driver loader links purego, which would
// make every command a dynamically linked executable, slower to start.
func TestCommandsStayStatic(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not found")
	}
	out, err := exec.Command(goCmd, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "purego") || dep == "runtime/cgo" || strings.HasSuffix(dep, "/internal/cuda") {
			t.Errorf("ptxkit depends on %s", dep)
		}
	}
}

// TestMain removes the driver loader built for the tests.
func TestMain(m *testing.M) {
	if os.Getenv(initProbeEnv) != "" {
		os.Exit(0) // TestStartupInitCost: the package inits have run
	}
	code := m.Run()
	if loaderOnce.path != "" {
		os.RemoveAll(filepath.Dir(loaderOnce.path))
	}
	os.Exit(code)
}
