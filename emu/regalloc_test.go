package emu

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/testref"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// withoutSharing decodes and runs with one slot per register.
func withoutSharing(f func()) {
	shareSlots = false
	defer func() { shareSlots = true }()
	f()
}

// TestSlotSharingSameResults runs every launch of the H100 reference set
// with and without register slot sharing: the buffers and reports must be
// the same bytes, and the shared programs must hold fewer slots.
func TestSlotSharingSameResults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the reference set twice (-short)")
	}
	dir := gpuRefDir(t)
	rows, err := testref.Launches(filepath.Join(dir, "launches.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	ran, fewer := 0, 0
	for _, row := range rows {
		cfg, ok := refConfig(row)
		if !ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, row.PTX))
		if err != nil {
			t.Fatal(err)
		}
		m, errs := parser.ParseString(row.PTX, string(src))
		if errs.HasErrors() {
			t.Fatalf("%s: %v", row.PTX, errs.Err())
		}
		run := func() (*Program, string) {
			p, errs := Decode(m, row.Kernel)
			if errs.HasErrors() {
				t.Fatalf("%s: %v", row.Name, errs.Err())
			}
			res, err := execute(p, cfg, refArgs(t, dir, row.Args))
			if err != nil {
				t.Fatalf("%s: %v", row.Name, err)
			}
			var out bytes.Buffer
			for _, b := range res.Buffers {
				if b != nil {
					out.Write(b.Data)
				}
			}
			fmt.Fprint(&out, res.Report)
			return p, out.String()
		}
		shared, got := run()
		var alone *Program
		var want string
		withoutSharing(func() { alone, want = run() })
		if got != want {
			t.Errorf("%s: the results differ with slot sharing", row.Name)
		}
		if shared.numSlots < alone.numSlots {
			fewer++
		}
		t.Logf("%s: %d slots shared, %d alone", row.Name, shared.numSlots, alone.numSlots)
		ran++
	}
	if ran < 10 || fewer < ran/2 {
		t.Errorf("%d launches ran, %d with fewer slots", ran, fewer)
	}
}

// refConfig reads the grid, block, cluster and shared bytes of a row of
// launches.tsv (cooperative rows are left out).
func refConfig(row testref.Launch) (Config, bool) {
	var cfg Config
	for i, d := range []*[3]int{&cfg.Grid, &cfg.Block, &cfg.Cluster} {
		parts := strings.Split([]string{row.Grid, row.Block, row.Cluster}[i], ",")
		*d = [3]int{1, 1, 1}
		for j, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil || j > 2 {
				return cfg, false
			}
			d[j] = n
		}
	}
	n, err := strconv.Atoi(row.Shared)
	cfg.SharedBytes = n
	return cfg, err == nil
}

// refArgs builds the arguments of a row of launches.tsv.
func refArgs(t *testing.T, dir string, args []string) []Arg {
	var out []Arg
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "buf:"):
			n, _ := strconv.Atoi(a[4:])
			out = append(out, buf(n))
		case strings.HasPrefix(a, "file:"):
			b, err := os.ReadFile(filepath.Join(dir, a[5:]))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, Arg{IsBuffer: true, Buffer: b})
		default:
			n, err := strconv.ParseUint(a, 0, 64)
			if err != nil {
				t.Fatalf("argument %q", a)
			}
			out = append(out, scalar(n))
		}
	}
	return out
}

// TestSlotSharingLiveRanges checks the rules that keep shared slots
// exact: a register read before any write reads zero although other
// registers come and go around it; a write under a guard keeps the old
// value for the lanes it skips; a destination of a cross-lane instruction
// is not a source's slot.
func TestSlotSharingLiveRanges(t *testing.T) {
	src := kernel1(`
	mov.u32 %r1, %laneid;
	add.u32 %r2, %r1, 7;
	mul.lo.u32 %r3, %r2, 3;
	and.b32 %r4, %r1, 1;
	setp.eq.u32 %p1, %r4, 0;
	mov.u32 %r5, 100;
	@%p1 mov.u32 %r5, 200;
	mov.u32 %r6, 11;
	add.u32 %r6, %r6, %r3;
	shfl.sync.bfly.b32 %r7, %r6, 1, 31, -1;
	mul.wide.u32 %rd2, %r1, 16;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v4.u32 [%rd3], {%r9, %r5, %r7, %r6};`, "")
	p := compile(t, src)
	var alone *Program
	withoutSharing(func() { alone = compile(t, src) })
	if p.numSlots >= alone.numSlots {
		t.Errorf("%d slots shared, %d alone: nothing shared", p.numSlots, alone.numSlots)
	}
	res := launch(t, src, Config{Block: dims(32, 1, 1)}, buf(32*16))
	got := u32s(res.Buffers[0].Data)
	for l := range 32 {
		v := func(l int) uint32 { return uint32(11 + (l+7)*3) }
		want := []uint32{0, 100, v(l ^ 1), v(l)}
		if l&1 == 0 {
			want[1] = 200
		}
		if fmt.Sprint(got[4*l:4*l+4]) != fmt.Sprint(want) {
			t.Errorf("lane %d: got %v, want %v", l, got[4*l:4*l+4], want)
		}
	}
}

// TestLdParamOnce: a warp's kernel-parameter loads of one address read
// the bytes once and give every lane the value, with the byte counts of
// one load per lane; a partial warp and a signed narrow type included.
func TestLdParamOnce(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out, .param .s8 a, .param .u16 b, .param .u64 c)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	ld.param.s8 %r2, [a];
	ld.param.u16 %r3, [b];
	ld.param.u64 %rd2, [c];
	cvt.u32.u64 %r4, %rd2;
	mul.wide.u32 %rd3, %r1, 16;
	add.u64 %rd4, %rd1, %rd3;
	st.global.v4.u32 [%rd4], {%r2, %r3, %r4, %r1};
	ret;
}`
	res := launch(t, src, Config{Block: dims(40, 1, 1)}, buf(40*16), scalar(0xfe), scalar(0xbeef), scalar(0x1234567887654321))
	got := u32s(res.Buffers[0].Data)
	for l := range 40 {
		want := []uint32{0xfffffffe, 0xbeef, 0x87654321, uint32(l)}
		if fmt.Sprint(got[4*l:4*l+4]) != fmt.Sprint(want) {
			t.Fatalf("thread %d: got %#x, want %#x", l, got[4*l:4*l+4], want)
		}
	}
	if n := res.Stats.Loaded[SpaceParam]; n != 40*(8+1+2+8) {
		t.Errorf("param bytes loaded %d, want %d", n, 40*(8+1+2+8))
	}
}
