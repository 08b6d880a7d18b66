package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The exec tests build libcuda.so.1 once (cgo, -buildmode=c-shared) and
// run programs under ptxkit exec: a C program of the driver API compiled
// by the system's C compiler, and, when nvcc 12.5 is available, CUDA
// programs compiled with the static and the shared runtime.

var (
	libOnce sync.Once
	libPath string
	libErr  string
)

// testLibcuda builds the library into a folder kept for the test binary's
// run, or skips the test saying what is missing.
func testLibcuda(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds libcuda.so.1 with cgo; skipped with -short")
	}
	libOnce.Do(func() {
		if _, err := exec.LookPath("go"); err != nil {
			libErr = "no go command on PATH to build libcuda.so.1"
			return
		}
		if _, err := exec.LookPath("cc"); err != nil {
			libErr = "no C compiler (cc) to build libcuda.so.1 with cgo"
			return
		}
		dir, err := os.MkdirTemp("", "ptxkit-libcuda")
		if err != nil {
			libErr = err.Error()
			return
		}
		lib := filepath.Join(dir, libcudaName)
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", lib, "../ptxkit-libcuda")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			libErr = "building libcuda.so.1: " + err.Error() + "\n" + string(out)
			return
		}
		libPath = lib
	})
	if libPath == "" {
		if strings.HasPrefix(libErr, "building") {
			t.Fatal(libErr)
		}
		t.Skip(libErr)
	}
	return libPath
}

// runUnderExec runs argv with ptxkit exec and the test library.
func runUnderExec(t *testing.T, lib string, argv ...string) (int, string, string) {
	t.Helper()
	t.Setenv("PTXKIT_LIBCUDA", lib)
	var out, errs strings.Builder
	code := runExec(argv, strings.NewReader(""), &out, &errs)
	return code, out.String(), errs.String()
}

func TestExecDriverAPIFromC(t *testing.T) {
	lib := testLibcuda(t)
	bin := filepath.Join(t.TempDir(), "driverapi")
	cc := exec.Command("cc", "-o", bin, "testdata/exec/driverapi.c", "-L"+filepath.Dir(lib), "-l:"+libcudaName)
	if out, err := cc.CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	code, out, errs := runUnderExec(t, lib, bin)
	if code != 0 || !strings.Contains(out, "driver API PASSED") || !strings.Contains(out, "NVIDIA H100 80GB HBM3, 132 SMs") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, _ = runUnderExec(t, lib, "--device", "sm_80", bin)
	if code != 0 || !strings.Contains(out, "A100-SXM4-80GB, 108 SMs") {
		t.Fatalf("--device sm_80: exit %d\n%s", code, out)
	}
}

// nvccPath finds nvcc 12.5: $PTXKIT_NVCC or where ../shared/tools/cuda-nvcc puts it.
func nvccPath(t *testing.T) string {
	for _, p := range []string{os.Getenv("PTXKIT_NVCC"), "/root/.cache/cuda-nvcc/12.5/usr/lib/nvidia-cuda-toolkit/bin/nvcc"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("nvcc 12.5 not found (set PTXKIT_NVCC, or fetch it with ../shared/tools/cuda-nvcc)")
	return ""
}

// nvccBuild compiles a test program with PTX embedded, with the default
// static runtime or with -cudart shared.
func nvccBuild(t *testing.T, nvcc, src string, shared bool) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".cu"))
	args := []string{"-arch=sm_90", "-gencode", "arch=compute_90,code=compute_90", "-o", bin, src}
	if shared {
		args = append(args, "-cudart", "shared")
	}
	if out, err := exec.Command(nvcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("nvcc %s: %v\n%s", src, err, out)
	}
	if shared { // the runtime's folder, for libcudart.so.12
		libdir := filepath.Join(filepath.Dir(nvcc), "../../x86_64-linux-gnu")
		t.Setenv("LD_LIBRARY_PATH", libdir)
	}
	return bin
}

func TestExecNvccPrograms(t *testing.T) {
	lib := testLibcuda(t)
	nvcc := nvccPath(t)
	for _, shared := range []bool{false, true} {
		name := map[bool]string{false: "static runtime", true: "shared runtime"}[shared]
		t.Run(name, func(t *testing.T) {
			bin := nvccBuild(t, nvcc, "testdata/exec/vectoradd.cu", shared)
			code, out, errs := runUnderExec(t, lib, bin)
			if code != 0 || !strings.Contains(out, "Test PASSED") {
				t.Fatalf("vectorAdd: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
			}
		})
	}
	t.Run("features", func(t *testing.T) {
		bin := nvccBuild(t, nvcc, "testdata/exec/features.cu", false)
		code, out, errs := runUnderExec(t, lib, bin)
		if code != 0 || !strings.Contains(out, "features PASSED") || !strings.Contains(out, "block 0 reversed 128 elements") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
	})
	t.Run("memory", func(t *testing.T) { // managed, zero-copy, new/delete, host functions, cooperative launch
		bin := nvccBuild(t, nvcc, "testdata/exec/memory.cu", false)
		code, out, errs := runUnderExec(t, lib, bin)
		if code != 0 || !strings.Contains(out, "memory PASSED") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
	})
	t.Run("graphs", func(t *testing.T) { // stream capture across two streams, a graph built node by node
		bin := nvccBuild(t, nvcc, "testdata/exec/graphs.cu", false)
		code, out, errs := runUnderExec(t, lib, bin)
		if code != 0 || !strings.Contains(out, "graphs PASSED") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
	})
	t.Run("assert", func(t *testing.T) {
		bin := nvccBuild(t, nvcc, "testdata/exec/assert.cu", false)
		code, out, errs := runUnderExec(t, lib, bin)
		if code != 0 || !strings.Contains(out, "synchronize: cudaErrorAssert") ||
			!strings.Contains(errs, "thread: [5,0,0] Assertion `v[threadIdx.x] < 5` failed.") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
	})
	t.Run("fault", func(t *testing.T) {
		bin := nvccBuild(t, nvcc, "testdata/exec/fault.cu", false)
		code, out, errs := runUnderExec(t, lib, bin)
		if code != 0 || !strings.Contains(out, "launch: cudaSuccess, synchronize: cudaErrorIllegalAddress") ||
			!strings.Contains(errs, "out-of-bounds") || !strings.Contains(errs, "CUDA_ERROR_ILLEGAL_ADDRESS") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
	})
}

func TestExecUsage(t *testing.T) {
	var out, errs strings.Builder
	if code := runExec(nil, nil, &out, &errs); code != exitUsage || !strings.Contains(errs.String(), "no PROGRAM") {
		t.Errorf("no program: %d %q", code, errs.String())
	}
	t.Setenv("PTXKIT_LIBCUDA", "/nonexistent/libcuda.so.1")
	errs.Reset()
	if code := runExec([]string{"/bin/true"}, nil, &out, &errs); code != exitUsage || !strings.Contains(errs.String(), "PTXKIT_LIBCUDA") {
		t.Errorf("missing library: %d %q", code, errs.String())
	}
	errs.Reset()
	if code := runExec([]string{"--device", "sm_75", "/bin/true"}, nil, &out, &errs); code != exitUsage || !strings.Contains(errs.String(), "sm_75") {
		t.Errorf("bad device: %d %q", code, errs.String())
	}
}
