package tmem

import (
	"strings"
	"testing"
)

func TestLayoutTable(t *testing.T) {
	got := LayoutTable(Form{Shape: Shape16x64b, Num: 2}, false)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 2+32 {
		t.Fatalf("got %d lines:\n%s", len(lines), got)
	}
	if !strings.HasPrefix(lines[0], ".16x64b.x2: 2 register(s) per thread; lanes taddr+0..15, columns taddr+0..3") {
		t.Errorf("header %q", lines[0])
	}
	// Thread 3: lanes 0+8, columns 1 and 3.
	if f := strings.Fields(lines[2+3]); strings.Join(f, " ") != "3 8,1 8,3" {
		t.Errorf("thread 3 row %q", lines[2+3])
	}

	got = LayoutTable(Form{Shape: Shape16x256b, Num: 4, Packed: true}, true)
	if !strings.Contains(got, "r8..r15: register j lands where register j mod 4 does, 16 column(s) further per repeat") {
		t.Errorf("missing repeat rule:\n%s", got)
	}
	if !strings.HasPrefix(got, ".16x256b.x4.pack::16b: 16 register(s) per thread; lanes taddr+0..15, columns taddr+0..63; register bits") {
		t.Errorf("header of the packed load:\n%s", got)
	}
	// Thread 1 register 3 (k=3): lane 8, column 2*(2+1) = 6, packed 6-7.
	row := strings.Fields(strings.Split(got, "\n")[2+1])
	if row[1+3] != "8,6-7" {
		t.Errorf("thread 1 r3 = %q, want 8,6-7", row[1+3])
	}

	if got := LayoutTable(Form{Shape: Shape16x256b, Num: 64}, false); !strings.Contains(got, "NA") {
		t.Errorf("invalid form: %q", got)
	}
}

func TestDump(t *testing.T) {
	m := newAllocated(t, 32)
	var b strings.Builder
	m.Dump(&b)
	if b.String() != "tensor memory: 1 allocation(s); columns 0..31 (.cta_group::1)\n(no cell stored)\n" {
		t.Fatalf("empty dump %q", b.String())
	}
	f := Form{Shape: Shape32x32b, Num: 2}
	regs := regsFor(f, 0x100)
	if err := m.Store(Uniform(1, MakeAddr(32, 9)), f, regs); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	m.Dump(&b)
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// header + block header + 32 lanes, one block (columns 8..15).
	if len(lines) != 2+32 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	if f := strings.Fields(lines[1]); f[1] != "8" || f[8] != "15" {
		t.Errorf("block header %q", lines[1])
	}
	// Lane 33 = thread 1: column 9 = 0x100+1000, column 10 = 0x100+1001.
	want := []string{"33", "-", "000004e8", "000004e9", "-", "-", "-", "-", "-"}
	if got := strings.Fields(lines[3]); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("lane 33 row %q, want %q", lines[3], want)
	}
}
