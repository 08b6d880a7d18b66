package emu

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
)

// asyncPolicies are the landing policies every async test runs under.
var asyncPolicies = []AsyncPolicy{AsyncEager, AsyncDelayed, AsyncRandom}

// seeds returns the scheduling seeds a test runs under: many by default,
// few with -short.
func seeds() []uint64 {
	n := 40
	if testing.Short() {
		n = 5
	}
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(i)
	}
	return s
}

func readAsyncKernel(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "emu", "async", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// forEachSchedule runs fn under every policy and seed.
func forEachSchedule(t *testing.T, fn func(t *testing.T, cfg Config)) {
	for _, pol := range asyncPolicies {
		for _, seed := range seeds() {
			fn(t, Config{Seed: seed, Async: pol})
		}
	}
}

func TestClusterExchange(t *testing.T) {
	src := readAsyncKernel(t, "cluster_exchange.ptx")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Grid, cfg.Block, cfg.Cluster = dims(4, 1, 1), dims(32, 1, 1), dims(2, 1, 1)
		res := launchReport(t, src, cfg, buf(4*32*2))
		if res.Report != nil {
			t.Fatalf("policy %v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		got := u32s(res.Buffers[0].Data)
		for rank := 0; rank < 2; rank++ {
			for tid := 0; tid < 32; tid++ {
				if want := uint32((rank^1)*1000 + tid); got[rank*32+tid] != want {
					t.Fatalf("policy %v seed %d: out[%d] = %d, want %d", cfg.Async, cfg.Seed, rank*32+tid, got[rank*32+tid], want)
				}
			}
		}
	})
}

func TestStAsyncTrace(t *testing.T) {
	p := compile(t, readAsyncKernel(t, "cluster_exchange.ptx"))
	var events []AsyncEvent
	l := Launch{Kernel: p, Config: Config{Grid: dims(2, 1, 1), Block: dims(32, 1, 1), Cluster: dims(2, 1, 1), Async: AsyncDelayed},
		Args: []Arg{buf(256)}, Trace: func(e AsyncEvent) { events = append(events, e) }}
	res, err := l.Run()
	if err != nil || res.Report != nil {
		t.Fatal(err, res.Report)
	}
	count := map[string]int{}
	state := map[uint64]string{}
	for _, e := range events {
		count[e.Event]++
		switch e.Event {
		case "landed":
			if state[e.Op] != "issued" {
				t.Errorf("op %d landed after %q", e.Op, state[e.Op])
			}
		case "observed":
			if state[e.Op] != "landed" {
				t.Errorf("op %d observed after %q", e.Op, state[e.Op])
			}
		}
		state[e.Op] = e.Event
		if e.Kind != "st.async" || !strings.Contains(e.Detail, "4 bytes") {
			t.Errorf("event %v", e)
		}
	}
	if count["issued"] != 64 || count["landed"] != 64 || count["observed"] != 64 {
		t.Errorf("event counts %v", count)
	}
}

// words returns n little-endian words 0, 1, 2, ... as bytes.
func words(n int) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		b[4*i], b[4*i+1] = byte(i), byte(i>>8)
	}
	return b
}

func TestCpAsyncPipeline(t *testing.T) {
	src := readAsyncKernel(t, "cp_async_pipeline.ptx")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Block = dims(32, 1, 1)
		res := launchReport(t, src, cfg, Arg{IsBuffer: true, Buffer: words(256)}, buf(128))
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		for tid, got := range u32s(res.Buffers[1].Data) {
			want := uint32(0)
			for k := 0; k < 4; k++ {
				want += uint32(4*tid+k) + uint32(128+4*tid+k)
			}
			if got != want {
				t.Fatalf("%v seed %d: out[%d] = %d, want %d", cfg.Async, cfg.Seed, tid, got, want)
			}
		}
	})
}

func TestCpAsyncMbarrier(t *testing.T) {
	src := readAsyncKernel(t, "cp_async_mbarrier.ptx")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Block = dims(32, 1, 1)
		res := launchReport(t, src, cfg, Arg{IsBuffer: true, Buffer: words(128)}, buf(128))
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		for tid, got := range u32s(res.Buffers[1].Data) {
			n := (tid + 1) % 32
			want := uint32(16*n + 6)
			if got != want {
				t.Fatalf("%v seed %d: out[%d] = %d, want %d", cfg.Async, cfg.Seed, tid, got, want)
			}
		}
	})
}

func TestBulkStoreWaitRead(t *testing.T) {
	src := readAsyncKernel(t, "bulk_store.ptx")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Block = dims(32, 1, 1)
		res := launchReport(t, src, cfg, buf(512))
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		got := u32s(res.Buffers[0].Data)
		for tid := 0; tid < 32; tid++ {
			b := uint32(3 * tid)
			want := []uint32{b, b + 1, b + 2, b + 7}
			for k := range want {
				if got[4*tid+k] != want[k] {
					t.Fatalf("%v seed %d: out[%d] = %d, want %d", cfg.Async, cfg.Seed, 4*tid+k, got[4*tid+k], want[k])
				}
			}
		}
	})
}

func TestFlagPublication(t *testing.T) {
	src := readAsyncKernel(t, "flag_release.ptx")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Grid, cfg.Block, cfg.Cluster = dims(2, 1, 1), dims(32, 1, 1), dims(2, 1, 1)
		res := launchReport(t, src, cfg, buf(16), buf(4), buf(16))
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		if got := u32s(res.Buffers[2].Data); got[0] != 11 || got[1] != 22 || got[2] != 33 || got[3] != 44 {
			t.Fatalf("%v seed %d: out = %v", cfg.Async, cfg.Seed, got)
		}
	})
}

func TestRedAsyncCluster(t *testing.T) {
	src := readAsyncKernel(t, "red_async.ptx")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Grid, cfg.Block, cfg.Cluster = dims(4, 1, 1), dims(32, 1, 1), dims(4, 1, 1)
		res := launchReport(t, src, cfg, buf(16))
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		for rank, got := range u32s(res.Buffers[0].Data) {
			want := uint32(32 * (1 + 2 + 3 + 4 - (rank + 1)))
			if got != want {
				t.Fatalf("%v seed %d: counter of rank %d = %d, want %d", cfg.Async, cfg.Seed, rank, got, want)
			}
		}
	})
}

func TestBulkCopyMbarrier(t *testing.T) {
	src := readAsyncKernel(t, "bulk_copy.ptx")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Grid, cfg.Block, cfg.Cluster = dims(2, 1, 1), dims(64, 1, 1), dims(2, 1, 1)
		res := launchReport(t, src, cfg, Arg{IsBuffer: true, Buffer: words(128)}, buf(512))
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		for i, got := range u32s(res.Buffers[1].Data) {
			rank, tid := i/64, i%64
			if want := uint32((rank^1)*64 + tid); got != want {
				t.Fatalf("%v seed %d: out[%d] = %d, want %d", cfg.Async, cfg.Seed, i, got, want)
			}
		}
	})
}

// TestAsyncKernelsAssemble checks that NVIDIA ptxas accepts the async test
// kernels, so the emulator is tested on valid PTX.
func TestAsyncKernelsAssemble(t *testing.T) {
	ptxas := oracle.Ptxas()
	if ptxas == "" {
		t.Skip(oracle.SkipMessage)
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "emu", "async", "*.ptx"))
	if len(files) < 8 {
		t.Fatalf("found %d kernels", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		target := ""
		for _, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(line, ".target ") {
				target = strings.TrimSpace(strings.TrimPrefix(line, ".target "))
				break
			}
		}
		if n, _ := strconv.Atoi(strings.TrimRight(strings.TrimPrefix(target, "sm_"), "af")); n >= 100 {
			continue // newer than ptxas 12.5
		}
		out, err := exec.Command(ptxas, "-arch="+target, f, "-o", filepath.Join(t.TempDir(), "k.cubin")).CombinedOutput()
		if err != nil {
			t.Errorf("ptxas rejects %s: %v\n%s", f, err, out)
		}
	}
}

func TestBulkReduceSplitK(t *testing.T) {
	src := readAsyncKernel(t, "bulk_reduce.ptx")
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Grid, cfg.Block, cfg.Jobs = dims(4, 1, 1), dims(64, 1, 1), 2
		res := launchReport(t, src, cfg, buf(256))
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		for i, bits := range u32s(res.Buffers[0].Data) {
			// sum over ctaid 0..3 of (i + ctaid) = 4i + 6, exact in f32
			if got, want := math.Float32frombits(bits), float32(4*i+6); got != want {
				t.Fatalf("%v seed %d: out[%d] = %v, want %v", cfg.Async, cfg.Seed, i, got, want)
			}
		}
	})
}

func TestFlagPublicationMmio(t *testing.T) {
	src := strings.Replace(readAsyncKernel(t, "flag_release.ptx"), "st.async.release.gpu.global.u32", "st.async.mmio.release.sys.global.u32", 1)
	if !strings.Contains(src, ".mmio.release.sys") {
		t.Fatal("kernel not rewritten")
	}
	forEachSchedule(t, func(t *testing.T, cfg Config) {
		cfg.Grid, cfg.Block, cfg.Cluster = dims(2, 1, 1), dims(32, 1, 1), dims(2, 1, 1)
		res := launchReport(t, src, cfg, buf(16), buf(4), buf(16))
		if res.Report != nil {
			t.Fatalf("%v seed %d: %v", cfg.Async, cfg.Seed, res.Report)
		}
		if got := u32s(res.Buffers[2].Data); got[0] != 11 || got[3] != 44 {
			t.Fatalf("%v seed %d: out = %v", cfg.Async, cfg.Seed, got)
		}
	})
}
