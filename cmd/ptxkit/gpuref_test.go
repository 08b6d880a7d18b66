package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/internal/testref"
)

// gpuRefDir holds what an H100 wrote for the launches of launches.tsv.
var gpuRefDir = testref.Path("gpu-reference")

// gpuRefKnownFailures are the reference launches whose buffers still differ
// from the H100's, with the reason. TestGPUReference checks that each of
// them still differs, so that a fix shows up as a failure asking to remove
// the entry.
var gpuRefKnownFailures = map[string]string{}

// gpuLaunch is one row of launches.tsv.
type gpuLaunch struct{ testref.Launch }

func readGPULaunches(t testing.TB) []gpuLaunch {
	t.Helper()
	rows, err := testref.Launches(filepath.Join(gpuRefDir, "launches.tsv"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("the H100 reference set is absent (%v)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	out := make([]gpuLaunch, len(rows))
	for i, r := range rows {
		out[i] = gpuLaunch{r}
	}
	return out
}

// command returns the ptxkit run command line of the launch, writing its
// buffers to out.
func (g *gpuLaunch) command(out string) []string {
	cmd := []string{"run", filepath.Join(gpuRefDir, g.PTX), "--kernel", g.Kernel, "--grid", g.Grid, "--block", g.Block,
		"--shared-bytes", g.Shared, "--dump", "none", "--out", out}
	if raceEnabled {
		cmd = append(cmd, "--timeout", "0") // the race detector slows the longest launches past any fixed budget
	}
	if g.Cluster == "coop" {
		cmd = append(cmd, "--cooperative")
	} else {
		cmd = append(cmd, "--cluster", g.Cluster)
	}
	for _, a := range g.Args {
		if p, ok := strings.CutPrefix(a, "file:"); ok {
			a = "file:" + filepath.Join(gpuRefDir, p)
		}
		cmd = append(cmd, "--arg", a)
	}
	return cmd
}

// run executes the launch in-process and returns its buffers' directory.
func (g *gpuLaunch) run(t testing.TB) (string, time.Duration) {
	t.Helper()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	start := time.Now()
	code := run(g.command(dir), strings.NewReader(""), &out, &errb)
	took := time.Since(start)
	if code != exitOK {
		t.Fatalf("ptxkit %s: exit %d\n%s%s", strings.Join(g.command(dir), " "), code, out.String(), errb.String())
	}
	return dir, took
}

// compareGPU compares every expected buffer of the launch with what the
// emulator wrote to dir; it returns "" when all match.
func (g *gpuLaunch) compareGPU(t testing.TB, dir string) string {
	t.Helper()
	want, err := filepath.Glob(filepath.Join(gpuRefDir, "expected", g.Name, "arg*.bin"))
	if err != nil || len(want) == 0 {
		t.Fatalf("no expected buffers for %s", g.Name)
	}
	slices.Sort(want)
	for _, wf := range want {
		exp, err := os.ReadFile(wf)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.Base(wf)))
		if err != nil {
			return fmt.Sprintf("%s: the emulator wrote no such buffer", filepath.Base(wf))
		}
		if msg := compareBuffer(g.Compare, exp, got); msg != "" {
			return filepath.Base(wf) + ": " + msg
		}
	}
	return ""
}

// compareBuffer applies a compare mode of launches.tsv: exact,
// sorted-u32 (the multisets of 32-bit words) or skip-words:I,J.
func compareBuffer(mode string, want, got []byte) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	switch {
	case mode == "exact":
	case mode == "sorted-u32":
		want, got = sortedWords(want), sortedWords(got)
	case strings.HasPrefix(mode, "skip-words:"):
		want, got = slices.Clone(want), slices.Clone(got)
		for _, s := range strings.Split(strings.TrimPrefix(mode, "skip-words:"), ",") {
			i, err := strconv.Atoi(s)
			if err != nil || 4*i+4 > len(want) {
				return fmt.Sprintf("bad compare mode %q", mode)
			}
			copy(want[4*i:4*i+4], make([]byte, 4))
			copy(got[4*i:4*i+4], make([]byte, 4))
		}
	default:
		return fmt.Sprintf("unknown compare mode %q", mode)
	}
	for i := range want {
		if want[i] != got[i] {
			diff := 0
			for j := range want {
				if want[j] != got[j] {
					diff++
				}
			}
			w := i &^ 3
			return fmt.Sprintf("first difference at byte %d (word %d: got %#08x, want %#08x); %d of %d bytes differ",
				i, w/4, word(got, w), word(want, w), diff, len(want))
		}
	}
	return ""
}

func word(b []byte, i int) uint32 {
	if i+4 > len(b) {
		return uint32(b[i])
	}
	return binary.LittleEndian.Uint32(b[i:])
}

func sortedWords(b []byte) []byte {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	slices.Sort(w)
	out := make([]byte, len(b))
	for i, v := range w {
		binary.LittleEndian.PutUint32(out[4*i:], v)
	}
	copy(out[4*len(w):], b[4*len(w):])
	return out
}

// TestGPUReference runs every launch of the H100 reference set and
// compares the buffers with what the GPU wrote, byte for byte (or per the
// launch's compare mode). Launches in gpuRefKnownFailures must still
// differ.
func TestGPUReference(t *testing.T) {
	for _, g := range readGPULaunches(t) {
		t.Run(g.Name, func(t *testing.T) {
			dir, took := g.run(t)
			msg := g.compareGPU(t, dir)
			why, known := gpuRefKnownFailures[g.Name]
			switch {
			case msg != "" && !known:
				t.Errorf("differs from the H100: %s", msg)
			case msg == "" && known:
				t.Errorf("matches the H100 now; remove it from gpuRefKnownFailures (%s)", why)
			case known:
				t.Logf("known difference (%s): %s", why, msg)
			}
			t.Logf("%v", took)
		})
	}
}

// BenchmarkGPUReference times each reference launch through ptxkit run
// (parse, check, decode, emulate, write the buffers).
func BenchmarkGPUReference(b *testing.B) {
	for _, g := range readGPULaunches(b) {
		b.Run(g.Name, func(b *testing.B) {
			for b.Loop() {
				g.run(b)
			}
		})
	}
}

// TestGPUReferenceCooperativeAndRecursion runs two kernels of the
// reference PTX that launches.tsv does not launch, through the command
// line, and checks them against values computed here from their CUDA
// sources: grid_sync (cooperative_groups grid_group::sync, warp.cu) with
// --cooperative, and recursion (a recursive __noinline__ walk, basics.cu).
func TestGPUReferenceCooperativeAndRecursion(t *testing.T) {
	ptx := func(name string) string {
		p := filepath.Join(gpuRefDir, "ptx", name)
		if _, err := os.Stat(p); err != nil {
			t.Skipf("the H100 reference set is absent (%v)", err)
		}
		return p
	}
	runOut := func(arg int, args ...string) []uint32 {
		t.Helper()
		dir := t.TempDir()
		code, out, errs := runCmd(t, "", append(args, "--dump", "none", "--out", dir)...)
		if code != exitOK {
			t.Fatalf("exit %d: %s%s", code, out, errs)
		}
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("arg%d.bin", arg)))
		if err != nil {
			t.Fatal(err)
		}
		w := make([]uint32, len(b)/4)
		for i := range w {
			w[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		return w
	}

	const n, threads = 10000, 8 * 128
	got := runOut(0, "run", ptx("warp.ptx"), "--kernel", "grid_sync", "--grid", "8", "--block", "128", "--cooperative",
		"--arg", "buf:40000", "--arg", strconv.Itoa(n))
	buf := make([]uint32, n)
	for i := range buf {
		buf[i] = uint32(i) * 2654435761
	}
	for i := range n {
		var acc uint32
		for j := i % threads; j < n; j += threads {
			acc += buf[(j*7+1)%n]
		}
		if want := buf[i] ^ acc; got[i] != want {
			t.Fatalf("grid_sync: buf[%d] = %#x, want %#x", i, got[i], want)
		}
	}
	code, _, errs := runCmd(t, "", "run", ptx("warp.ptx"), "--kernel", "grid_sync", "--grid", "8", "--block", "128",
		"--arg", "buf:40000", "--arg", strconv.Itoa(n), "--dump", "none")
	if code != exitSanitize || !strings.Contains(errs, "trap") {
		t.Fatalf("grid_sync without --cooperative: exit %d, %s; want the runtime's trap", code, errs)
	}

	table, err := os.ReadFile(filepath.Join(gpuRefDir, "inputs", "u16k.bin"))
	if err != nil {
		t.Fatal(err)
	}
	word := func(i uint32) uint32 { return binary.LittleEndian.Uint32(table[4*(i&1023):]) }
	var walk func(node uint32, depth int) uint32
	walk = func(node uint32, depth int) uint32 {
		if depth == 0 {
			return word(node)
		}
		var b [4]uint32
		for k := range uint32(4) {
			b[k] = word(node*4 + k)
		}
		return b[node&3] + walk(b[(node+1)&3], depth-1)*3
	}
	out := runOut(1, "run", ptx("basics.ptx"), "--kernel", "recursion", "--grid", "4", "--block", "128",
		"--arg", "file:"+filepath.Join(gpuRefDir, "inputs", "u16k.bin"), "--arg", "buf:2048")
	for i, v := range out {
		if want := walk(uint32(i), 1+i%9); v != want {
			t.Fatalf("recursion: out[%d] = %d, want %d", i, v, want)
		}
	}
}
