package emu

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// TestPrescanCountsAreLowerBounds: on every kernel of the project's PTX
// and the H100 reference set, the instructions and register slots the
// prescan counts in the entry's body are at most what the decoded program
// holds, so that the prescan never refuses what decode accepts.
func TestPrescanCountsAreLowerBounds(t *testing.T) {
	// The prescan counts declared registers: compare with one slot per
	// register (the sharing of regalloc.go only lowers the count).
	shareSlots = false
	defer func() { shareSlots = true }()
	files, _ := filepath.Glob("../testdata/emu/*.ptx")
	more, _ := filepath.Glob("../testdata/emu/async/*.ptx")
	ref, _ := filepath.Glob(gpuRef + "/ptx/*.ptx")
	own, _ := filepath.Glob("testdata/*.ptx")
	files = append(append(append(files, more...), ref...), own...)
	checked := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, errs := parser.ParseFile(f, src)
		if errs.HasErrors() {
			continue
		}
		_, entries := entryOf(m, "")
		for _, k := range entries {
			p, errs := Decode(m, k)
			if errs.HasErrors() {
				continue
			}
			s := prescanner{src: src}
			body, ok := s.findEntry(k)
			if !ok {
				t.Errorf("%s: the prescan finds no body of %s", f, k)
				continue
			}
			s.i = body
			insts, slots, _ := s.countBody()
			if insts > len(p.Insts) || slots > p.numSlots || insts == 0 {
				t.Errorf("%s %s: prescan counts %d instructions and %d slots; the program has %d and %d", f, k, insts, slots, len(p.Insts), p.numSlots)
			}
			checked++
		}
	}
	t.Logf("%d kernels", checked)
	if checked < 20 {
		t.Errorf("only %d kernels checked", checked)
	}
}

// TestPrescanRefusesEarly: a kernel whose body passes the instruction
// limit (lowered here to 50,000 for a 1.3 MB input) or declares more
// register slots than the emulator has is refused by the prescan, with a
// position, allocating almost nothing and in a few milliseconds, where
// parsing alone allocates many times the input. The same text with the
// kernel in bounds, or another kernel named, passes.
func TestPrescanRefusesEarly(t *testing.T) {
	defer func(n int) { programInstLimit = n }(programInstLimit)
	programInstLimit = 50000
	body := strings.Repeat("\tadd.u32 %r1, %r1, 1;\n\t@%p1 bra L1;\nL1:\n\tmov.b32 %r2, {%h1, %h2};\n", 20000)
	src := []byte(header + "// .entry decoy() {}\n.visible .entry small() { ret; }\n.visible .entry big(.param .u64 out)\n{\n\t.reg .b32 %r<3>;\n\t.reg .pred %p<2>;\n\t.reg .b16 %h<3>;\n" + body + "\tret;\n}\n")
	errs := Prescan("big.ptx", src, "big")
	if !errs.HasErrors() || !strings.Contains(errs[0].Message, "more than 50000 instructions") || errs[0].Pos.Line < 9 {
		t.Fatalf("got %v", errs)
	}
	if errs := Prescan("big.ptx", src, "small"); errs.HasErrors() {
		t.Errorf("small: %v", errs)
	}
	if errs := Prescan("big.ptx", src, ""); errs.HasErrors() {
		t.Errorf("the first kernel is small: %v", errs)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	Prescan("big.ptx", src, "big")
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
		t.Errorf("the prescan of %d bytes allocated %d bytes", len(src), alloc)
	}
	if took > time.Second {
		t.Errorf("the prescan of %d bytes took %v", len(src), took)
	}
	if n := testing.AllocsPerRun(3, func() { Prescan("big.ptx", src, "big") }); n > 20 {
		t.Errorf("%v allocations per prescan", n)
	}
	runtime.ReadMemStats(&before)
	var m *ast.Module
	m, _ = parser.ParseFile("big.ptx", src)
	runtime.ReadMemStats(&after)
	t.Logf("input %d bytes; the prescan refused it in %v; parsing alone allocates %d bytes (%d statements)", len(src), took, after.TotalAlloc-before.TotalAlloc, len(m.Stmts))

	regs := []byte(header + ".visible .entry k()\n{\n\t.reg .b32 %r<600000>;\n\t// .reg .b32 %c<9000000>;\n\t.reg .v2 .b32 %v<300000>;\n\tret;\n}\n")
	if errs := Prescan("regs.ptx", regs, ""); !errs.HasErrors() || !strings.Contains(errs[0].Message, "1048576 register slots") || errs[0].Pos.Line != 8 {
		t.Errorf("1.2M slots: got %v", errs)
	}
}

// FuzzPrescan: any text, prescanned for any kernel name, gives an answer
// without panicking, and a refusal carries a valid position.
func FuzzPrescan(f *testing.F) {
	f.Add([]byte(header+".visible .entry k() { .reg .b32 %r<4>; add.u32 %r1, %r1, 1; }"), "")
	f.Add([]byte(".entry k ( { /* ; \" .reg .b32 %r<99999999999>"), "k")
	f.Add([]byte(".entry a(){L: @%p bra L; { .reg .v4 .b128 %q<7>; } }\n.entry b(){}"), "b")
	f.Fuzz(func(t *testing.T, src []byte, kernel string) {
		for _, e := range Prescan("f.ptx", src, kernel) {
			if !e.Pos.IsValid() || int(e.Pos.Offset) > len(src) {
				t.Fatalf("refusal at an invalid position %v", e.Pos)
			}
		}
	})
}
