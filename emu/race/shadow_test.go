package race

import (
	"testing"
	"unsafe"
)

// readsOf returns the read handles of word i of rank's shared memory.
func (c *Cluster) readsOf(rank, i int) []uint32 {
	p := &c.shared[rank][i/pageWords]
	if p.r == nil || p.r[i%pageWords] == 0 {
		return nil
	}
	r := p.r[i%pageWords]
	if r&tag == 0 {
		return []uint32{r}
	}
	var out []uint32
	for _, h := range c.G.rare.at(r &^ tag).reads {
		if h != 0 {
			out = append(out, h)
		}
	}
	return out
}

// rareOf returns word i's rare entry index (0: none).
func (c *Cluster) rareOf(rank, i int) uint32 {
	p := &c.shared[rank][i/pageWords]
	if p.r == nil || p.r[i%pageWords]&tag == 0 {
		return 0
	}
	return p.r[i%pageWords] &^ tag
}

// TestShadowCompact: a word's shadow is two 32-bit handles, in page
// arrays of 256 words; a record is at most 28 bytes.
func TestShadowCompact(t *testing.T) {
	if n := unsafe.Sizeof([pageWords]uint32{}); n != 4*pageWords {
		t.Fatalf("a page array is %d bytes", n)
	}
	if n := unsafe.Sizeof(record{}) + unsafe.Sizeof(recMeta{}); n > 28 {
		t.Fatalf("a record is %d bytes, want at most 28", n)
	}
	if n := unsafe.Sizeof(rare{}); n > 16 {
		t.Fatalf("a rare entry is %d bytes, want at most 16", n)
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
	if c.rareOf(0, 0) == 0 || len(c.readsOf(0, 0)) != 3 {
		t.Fatalf("three unordered reads: rare %d, %d reads", c.rareOf(0, 0), len(c.readsOf(0, 0)))
	}
	if r := c.Shared(Thread{0, 3, 0}, 0, 0, 4, 64, write(9)); r == nil || r.Prev.Write || r.Prev.PC > 2 {
		t.Fatalf("unordered write after reads kept out of line: %+v", r)
	}

	c = NewCluster(NewGlobal(), 0, 1, 128)
	for wi := range 2 {
		c.Shared(Thread{0, wi, 1}, 0, 0, 4, 64, read(int32(wi)))
	}
	ext := c.rareOf(0, 0)
	barrierAll(c, 4)
	if r := c.Shared(Thread{0, 3, 0}, 0, 0, 4, 64, write(9)); r != nil {
		t.Fatalf("write after the barrier: %+v", r)
	}
	if c.rareOf(0, 0) != 0 || len(c.readsOf(0, 0)) != 0 {
		t.Fatalf("the write kept the rare entry: %d, %d reads", c.rareOf(0, 0), len(c.readsOf(0, 0)))
	}
	for wi := range 2 {
		c.Shared(Thread{0, wi, 1}, 0, 4, 4, 64, read(int32(wi)))
	}
	if got := c.rareOf(0, 1); got != ext {
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
	i := c.rareOf(0, 0)
	if i == 0 || c.G.decode(c.G.rare.at(i).weak).m.pc != 1 {
		t.Fatalf("weak write not kept: rare %d", i)
	}
	if r := c.Shared(Thread{0, 1, 0}, 0, 0, 4, 64, atom); r == nil || r.Prev.PC != 1 {
		t.Fatalf("atomic after an unordered weak write: %+v", r)
	}
}

// TestBytesSplit: byte stores by different threads to one word are each
// remembered (a per-byte split), so an unordered read of the first byte
// races with its writer even after another thread wrote the second; a
// later whole-word write by one thread joins the word again.
func TestBytesSplit(t *testing.T) {
	c := NewCluster(NewGlobal(), 0, 1, 64)
	for l := range 2 {
		if r := c.Shared(Thread{0, 0, l}, 0, uint32(l), 1, 64, write(1)); r != nil {
			t.Fatal(r)
		}
	}
	if c.shared[0][0].w[0]&tag == 0 {
		t.Fatal("byte stores did not split the word")
	}
	r := c.Shared(Thread{0, 1, 0}, 0, 0, 1, 64, read(2))
	if r == nil || r.Prev.Thread != (Thread{0, 0, 0}) {
		t.Fatalf("read of byte 0 after lane 1 wrote byte 1: %+v", r)
	}
	c = NewCluster(NewGlobal(), 0, 1, 64)
	c.Shared(Thread{0, 0, 0}, 0, 0, 1, 64, write(1))
	c.Shared(Thread{0, 0, 0}, 0, 0, 4, 64, write(3))
	if h := c.shared[0][0].w[0]; h&tag != 0 {
		t.Fatal("a whole-word write by one thread left the word split")
	}
	if c.G.split.inUse != 0 {
		t.Fatalf("%d split words in use", c.G.split.inUse)
	}
}

// TestRecordsCollected: records no cell names any more are reclaimed, so
// the record table stays bounded by the shadow, not by the run's length.
func TestRecordsCollected(t *testing.T) {
	g := NewGlobal()
	c := NewCluster(g, 0, 1, 32)
	for i := range 4 * minRecords {
		// One thread rewrites 16 words, each instruction a new instance.
		if r := c.GlobalAccess(Thread{0, 0, 0}, uint64(i%16)*4, 4, write(int32(i%7))); r != nil {
			t.Fatal(r)
		}
		c.Fence(Thread{0, 0, 0}, SemRelease, ScopeCTA) // a new epoch, so no same-epoch skip
	}
	if g.Collections == 0 || g.recs.inUse > 2*minRecords {
		t.Fatalf("%d collections, %d records in use", g.Collections, g.recs.inUse)
	}
	// The last writes are still known.
	c2 := NewCluster(g, 1, 1, 32)
	if r := c2.GlobalAccess(Thread{0, 0, 0}, 0, 4, read(1)); r == nil || r.Prev.Thread != (Thread{0, 0, 0}) || r.Prev.Cluster != 0 {
		t.Fatalf("read after the collections: %+v", r)
	}
}

// TestUnorderedAtomicsKept: atomics by three warps with no ordering
// between them do not race with each other, but a later weak read by a
// warp that knows only the last one races with an earlier one (the last
// write alone would hide it); an atom.cas against a weak load is the
// compare-and-swap loop's guess, not a race, and other atomics are not.
func TestUnorderedAtomicsKept(t *testing.T) {
	add := Kind{Write: true, RMW: true, Scope: ScopeGPU, PC: 2}
	for _, cas := range []bool{false, true} {
		c := NewCluster(NewGlobal(), 0, 1, 128)
		k := add
		k.CAS = cas
		for w := range 3 {
			if r := c.Shared(Thread{0, w, 0}, 0, 0, 4, 64, k); r != nil {
				t.Fatalf("atomics race with each other: %+v", r)
			}
		}
		c.G.collect() // the kept atomics' records survive a collection
		// Warp 2 reads after its own atomic: it knows that one only.
		r := c.Shared(Thread{0, 2, 0}, 0, 0, 4, 64, read(3))
		if cas {
			if r != nil {
				t.Fatalf("weak load against atom.cas reported: %+v", r)
			}
			continue
		}
		if r == nil || r.Prev.PC != 2 || r.Prev.Thread.Warp == 2 {
			t.Fatalf("weak read after unordered atomics of other warps: %+v", r)
		}
	}
	// An atomic that knows the earlier ones (a barrier between) drops them.
	c := NewCluster(NewGlobal(), 0, 1, 64)
	if r := c.Shared(w0, 0, 0, 4, 64, add); r != nil {
		t.Fatal(r)
	}
	c.BarArrive(0, 0, 0, 1<<32-1)
	c.BarArrive(0, 1, 0, 1<<32-1)
	acc := c.BarTake(0, 0)
	c.BarWaiter(0, 0, 0, acc)
	c.BarWaiter(0, 0, 1, acc)
	if r := c.Shared(w1, 0, 0, 4, 64, add); r != nil {
		t.Fatal(r)
	}
	if r := c.Shared(w1, 0, 0, 4, 64, read(3)); r != nil {
		t.Fatalf("ordered atomics reported: %+v", r)
	}
	if i := c.rareOf(0, 0); i != 0 {
		t.Fatalf("ordered atomic kept a rare entry %d", i)
	}
}

// TestSealedReads: a word read by three clusters in turn, no one of which
// released at .gpu scope, keeps no rare entry (the first cluster's read
// moves to the write handle and stands for every sealed cluster), and a
// later write by a fourth cluster still races with the reads; when the
// first cluster published at .gpu scope (another cluster may learn its
// clocks), its read is kept in a rare entry as before.
func TestSealedReads(t *testing.T) {
	for _, exposed := range []bool{false, true} {
		g := NewGlobal()
		var c *Cluster
		for cl := range 3 {
			g.RetireAll()
			c = NewCluster(g, int32(cl), 1, 32)
			if r := c.GlobalAccess(w0, 0x1000, 4, read(1)); r != nil {
				t.Fatal(r)
			}
			if cl == 0 && exposed {
				c.Strong(w0, true, 0x2000, false, true, SemRelease, ScopeGPU)
			}
		}
		if n := g.rare.inUse; (n == 0) == exposed {
			t.Fatalf("exposed %v: %d rare entries", exposed, n)
		}
		g.RetireAll()
		c = NewCluster(g, 3, 1, 32)
		r := c.GlobalAccess(w0, 0x1000, 4, write(2))
		if r == nil || r.Prev.Write || r.Prev.Cluster == 3 {
			t.Fatalf("exposed %v: a write after the reads of three other clusters: %+v", exposed, r)
		}
	}
}

// TestPairClocks: when the lanes' clocks take two values (lane 0 released
// once more than the others), a warp-instruction's record holds them as a
// pair, not a 32-entry vector, and each lane's clock decodes as it was.
func TestPairClocks(t *testing.T) {
	g := NewGlobal()
	c := NewCluster(g, 0, 1, 64)
	c.Strong(w0, false, 0x40, false, true, SemRelease, ScopeCTA) // lane 0 ticks
	for l := range 32 {
		if r := c.Shared(Thread{0, 0, l}, 0, uint32(4*l), 4, 256, read(5)); r != nil {
			t.Fatal(r)
		}
	}
	if g.vecs.inUse != 0 || g.pairs.inUse != 1 {
		t.Fatalf("vectors %d, pairs %d; want 0 and 1", g.vecs.inUse, g.pairs.inUse)
	}
	w := c.warpOf(w0)
	for l := range 32 {
		e := g.decode(c.shared[0][0].r[l])
		if e.clk != w.clk[l] || w.clk[l] != w.clk[1]+uint32(b2i(l == 0)) {
			t.Fatalf("lane %d: clock %d, warp has %d", l, e.clk, w.clk[l])
		}
	}
	// A write by warp 1 that knows nothing races with lane 5's read.
	if r := c.Shared(w1, 0, 20, 4, 256, write(6)); r == nil || r.Prev.Thread.Lane != 5 {
		t.Fatalf("unordered write after the reads: %+v", r)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTmemOpNamesIssuer: a warp's tcgen05.mma runs on the agent of its
// last lane, but the race reports name the thread that issued it, both
// for its operand reads of shared memory and for its write of D in
// Tensor Memory, as the earlier and as the current access.
func TestTmemOpNamesIssuer(t *testing.T) {
	c := NewCluster(NewGlobal(), 0, 1, 128)
	issuer := Thread{Rank: 0, Warp: 0, Lane: 5}
	op := c.TmemIssue(issuer, 7)
	if r := c.TmemOpOperand(op, 0, 64, 4, 1024); r != nil {
		t.Fatal(r)
	}
	// Warp 1 overwrites the operand with no ordering: a WAR race whose
	// earlier access is the MMA's read.
	r := c.Shared(Thread{Rank: 0, Warp: 1, Lane: 3}, 0, 64, 4, 1024, write(9))
	if r == nil || !r.Prev.Agent || r.Prev.Thread != issuer {
		t.Fatalf("operand read: %+v, want the operation issued by %v", r, issuer)
	}
	// Warp 1 stores to Tensor Memory cells the MMA then writes as it
	// lands: the current access is the MMA's.
	if r := c.TmemAccess(0, 1, 0, 1, 0, 1, true, 11); r != nil {
		t.Fatal(r)
	}
	r = c.TmemOpWrite(op, 0, 0, 1, 0, 1)
	if r == nil || !r.Cur.Agent || r.Cur.Thread != issuer {
		t.Fatalf("D write: %+v, want the operation issued by %v", r, issuer)
	}
	// The MMA writes another cell of D; warp 1 reads it without waiting
	// on the commit: the earlier access is the MMA's write.
	if r := c.TmemOpWrite(op, 0, 0, 1, 1, 1); r != nil {
		t.Fatal(r)
	}
	r = c.TmemAccess(0, 1, 0, 1, 1, 1, false, 12)
	if r == nil || !r.Prev.Agent || r.Prev.Thread != issuer {
		t.Fatalf("D read: %+v, want the operation issued by %v", r, issuer)
	}
}
