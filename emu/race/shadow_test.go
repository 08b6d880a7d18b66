package race

import (
	"testing"
	"unsafe"
)

// TestCellCompact: a word's shadow holds the last write and one read;
// the weak write and the read set are out of line.
func TestCellCompact(t *testing.T) {
	if n := unsafe.Sizeof(Cell{}); n > 56 {
		t.Fatalf("a Cell is %d bytes, want at most 56", n)
	}
}

// barrierAll completes named barrier 0 of CTA 0 for warps 0..n-1.
func barrierAll(c *Cluster, n int) {
	for wi := range n {
		c.BarArrive(0, wi, 0, 1<<32-1)
	}
	acc := c.BarTake(0, 0)
	for wi := range n {
		c.BarWaiter(0, 0, wi, acc)
	}
}

// TestRareEntryRecycled: unordered reads give a word a rare entry; the
// ordered write after them forgets the reads and gives the entry back,
// and the next word that needs one reuses it. The reads still race with
// an unordered write while they are kept out of line.
func TestRareEntryRecycled(t *testing.T) {
	c := NewCluster(NewGlobal(), 0, 1, 128)
	for wi := range 3 {
		if r := c.Shared(Thread{0, wi, 1}, 0, 0, 4, 64, read(int32(wi))); r != nil {
			t.Fatal(r)
		}
	}
	x := &c.shared[0][0]
	if x.ext == 0 || x.nread != 3 {
		t.Fatalf("three unordered reads: ext %d, %d reads", x.ext, x.nread)
	}
	if r := c.Shared(Thread{0, 3, 0}, 0, 0, 4, 64, write(9)); r == nil || r.Prev.Write || r.Prev.PC > 2 {
		t.Fatalf("unordered write after reads kept out of line: %+v", r)
	}

	c = NewCluster(NewGlobal(), 0, 1, 128)
	for wi := range 2 {
		c.Shared(Thread{0, wi, 1}, 0, 0, 4, 64, read(int32(wi)))
	}
	ext := c.shared[0][0].ext
	barrierAll(c, 4)
	if r := c.Shared(Thread{0, 3, 0}, 0, 0, 4, 64, write(9)); r != nil {
		t.Fatalf("write after the barrier: %+v", r)
	}
	if x := &c.shared[0][0]; x.ext != 0 || x.nread != 0 {
		t.Fatalf("the write kept the rare entry: ext %d, %d reads", x.ext, x.nread)
	}
	for wi := range 2 {
		c.Shared(Thread{0, wi, 1}, 0, 4, 4, 64, read(int32(wi)))
	}
	if got := c.shared[0][1].ext; got != ext {
		t.Fatalf("rare entry %d not reused (got %d)", ext, got)
	}
}

// TestWeakWriteOutOfLine: a weak write that an atomic overwrites is kept
// in the rare entry and still races with an unordered later write.
func TestWeakWriteOutOfLine(t *testing.T) {
	c := NewCluster(NewGlobal(), 0, 1, 128)
	if r := c.Shared(Thread{0, 0, 0}, 0, 0, 4, 64, write(1)); r != nil {
		t.Fatal(r)
	}
	atom := Kind{Write: true, RMW: true, Scope: ScopeCTA, PC: 2}
	if r := c.Shared(Thread{0, 0, 0}, 0, 0, 4, 64, atom); r != nil {
		t.Fatal(r)
	}
	x := &c.shared[0][0]
	if x.ext == 0 || c.rare.at(x.ext).weak.pc != 1 {
		t.Fatalf("weak write not kept: ext %d", x.ext)
	}
	if r := c.Shared(Thread{0, 1, 0}, 0, 0, 4, 64, atom); r == nil || r.Prev.PC != 1 {
		t.Fatalf("atomic after an unordered weak write: %+v", r)
	}
}
