package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ptxkit/ptxkit/internal/timeline/timelinetest"
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

// nvccProgram is a test program: its sources and extra nvcc flags.
type nvccProgram struct {
	name  string
	srcs  []string
	flags []string
}

// nvccBuildAll compiles the programs concurrently (nvcc is most of these
// tests' time), with PTX embedded, and returns their paths by name.
func nvccBuildAll(t *testing.T, nvcc string, progs []nvccProgram) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}
	errs := make([]error, len(progs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, p := range progs {
		bin := filepath.Join(dir, strings.ReplaceAll(p.name, " ", "_"))
		out[p.name] = bin
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			args := append([]string{"-arch=sm_90", "-gencode", "arch=compute_90,code=compute_90", "-o", bin}, p.flags...)
			args = append(args, p.srcs...)
			if b, err := exec.Command(nvcc, args...).CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("nvcc %s: %v\n%s", p.name, err, b)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestExecNvccPrograms(t *testing.T) {
	lib := testLibcuda(t)
	nvcc := nvccPath(t)
	src := func(names ...string) []string {
		for i, n := range names {
			names[i] = "testdata/exec/" + n
		}
		return names
	}
	bins := nvccBuildAll(t, nvcc, []nvccProgram{
		{"static runtime", src("vectoradd.cu"), nil},
		{"shared runtime", src("vectoradd.cu"), []string{"-cudart", "shared"}},
		{"features", src("features.cu"), nil},                                             // streams, events, memset, symbols, dynamic shared memory, printf
		{"memory", src("memory.cu"), nil},                                                 // managed, zero-copy, new/delete, host functions, cooperative launch
		{"graphs", src("graphs.cu"), nil},                                                 // stream capture across two streams, a graph built node by node
		{"conditional graphs", src("graphcond.cu"), nil},                                  // if and while nodes, cudaGraphSetConditional, capture into a body
		{"graph parameters", src("graphparams.cu"), nil},                                  // node parameter getters, edges added, listed and removed, a cycle
		{"separate compilation", src("rdc_main.cu", "rdc_lib.cu"), []string{"-rdc=true"}}, // the compile units' PTX linked at load
		{"runtime", src("runtime.cu"), nil},                                               // properties, pitched copies, symbols, occupancy, registered memory, reset
		{"texture", src("texture.cu"), nil},                                               // texture objects over arrays, surfaces
		{"assert", src("assert.cu"), nil},
		{"fault", src("fault.cu"), nil},
	})
	// The shared runtime's folder, for libcudart.so.12.
	t.Setenv("LD_LIBRARY_PATH", filepath.Join(filepath.Dir(nvcc), "../../x86_64-linux-gnu"))
	for _, c := range []struct {
		name      string
		out, errs []string
	}{
		{"static runtime", []string{"Test PASSED"}, nil},
		{"shared runtime", []string{"Test PASSED"}, nil},
		{"features", []string{"features PASSED", "block 0 reversed 128 elements"}, nil},
		{"memory", []string{"memory PASSED"}, nil},
		{"graphs", []string{"graphs PASSED"}, nil},
		{"conditional graphs", []string{"conditional graph nodes PASSED"}, nil},
		{"graph parameters", []string{"graph parameters PASSED"}, []string{"edges form a cycle"}},
		{"separate compilation", []string{"separate compilation PASSED", "f2 from unit 2"}, nil},
		{"runtime", []string{"runtime PASSED"}, nil},
		{"texture", []string{"texture PASSED"}, nil},
		{"assert", []string{"synchronize: cudaErrorAssert"}, []string{"thread: [5,0,0] Assertion `v[threadIdx.x] < 5` failed."}},
		{"fault", []string{"launch: cudaSuccess, synchronize: cudaErrorIllegalAddress"}, []string{"out-of-bounds", "CUDA_ERROR_ILLEGAL_ADDRESS"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runUnderExec(t, lib, bins[c.name])
			ok := code == 0
			for _, s := range c.out {
				ok = ok && strings.Contains(out, s)
			}
			for _, s := range c.errs {
				ok = ok && strings.Contains(errs, s)
			}
			if !ok {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
			}
		})
	}
	t.Run("timeline", func(t *testing.T) { execTimeline(t, lib, bins["memory"], "memory PASSED") })
}

// execTimeline runs a program of several launches with --timeline and
// checks the trace: one span per launch on the launches track, named by
// kernel, in order and not overlapping, and CTA tracks named by their
// launch.
func execTimeline(t *testing.T, lib, bin, passed string) {
	path := filepath.Join(t.TempDir(), "exec.json")
	code, out, errs := runUnderExec(t, lib, "--timeline", path, bin)
	if code != 0 || !strings.Contains(out, passed) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no timeline written: %v", err)
	}
	tr := timelinetest.Parse(t, raw)
	var end float64
	launches, kernels, ctaTracks := 0, map[string]bool{}, map[string]bool{}
	for _, e := range tr.TraceEvents {
		switch {
		case e.Cat == "launch" && e.Ph == "X":
			if e.TS < end {
				t.Errorf("launch %q starts at %v, before the previous launch ended at %v", e.Name, e.TS, end)
			}
			end = e.TS + e.Dur
			launches++
			kernels[e.Name] = true
		case e.Name == "process_name":
			if n, _ := e.Args["name"].(string); strings.Contains(n, "launch ") {
				ctaTracks[n] = true
			}
		}
	}
	if launches < 5 || len(kernels) < 2 {
		t.Errorf("%d launch spans of %d kernels %v, want the program's 5 launches of several kernels", launches, len(kernels), kernels)
	}
	// CTAs get tracks where something happened to draw (here the
	// cooperative launch's grid barrier), named by their launch.
	if len(ctaTracks) == 0 {
		t.Errorf("no CTA track names its launch")
	}
	for n := range ctaTracks {
		var i int
		if _, err := fmt.Sscanf(n[strings.Index(n, "launch ")+len("launch "):], "%d", &i); err != nil || i < 1 || i > launches {
			t.Errorf("CTA track %q names no launch of the %d", n, launches)
		}
	}
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
	t.Setenv("PTXKIT_LIBCUDA", "/bin/true") // any existing file named libcuda.so.1 is looked for by name
	if code := runExec([]string{"/bin/true"}, nil, &out, &errs); code != exitUsage || !strings.Contains(errs.String(), "must be named libcuda.so.1") {
		t.Errorf("misnamed library: %d %q", code, errs.String())
	}
	lib := filepath.Join(t.TempDir(), libcudaName)
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PTXKIT_LIBCUDA", lib)
	errs.Reset()
	if code := runExec([]string{"sh", "-c", "exit 7"}, nil, &out, &errs); code != 7 {
		t.Errorf("the program's exit status is not passed on: %d %q", code, errs.String())
	}
	if code := runExec([]string{"sh", "-c", "kill -TERM $$"}, nil, &out, &errs); code != 128+15 {
		t.Errorf("a program killed by SIGTERM: %d", code)
	}
	errs.Reset()
	if code := runExec([]string{"--device", "sm_75", "/bin/true"}, nil, &out, &errs); code != exitUsage || !strings.Contains(errs.String(), "sm_75") {
		t.Errorf("bad device: %d %q", code, errs.String())
	}
}
