package race

import "testing"

func TestByteMask(t *testing.T) {
	for _, tc := range []struct {
		b, off uint64
		n      int
		want   uint8
	}{
		{0, 0, 4, 0xf}, {0, 0, 16, 0xf}, {4, 0, 16, 0xf}, {0, 1, 1, 0x2}, {0, 2, 2, 0xc}, {8, 10, 4, 0xc}, {12, 10, 4, 0x3},
	} {
		if got := byteMask(tc.b, tc.off, tc.n); got != tc.want {
			t.Errorf("byteMask(%d, %d, %d) = %#x, want %#x", tc.b, tc.off, tc.n, got, tc.want)
		}
	}
}

func TestKnowCoversJoin(t *testing.T) {
	a, b := newKnow(4), newKnow(4)
	a.V[0], b.V[1] = 3, 2
	if a.covers(b) || b.covers(a) {
		t.Fatal("unordered knowledge covers")
	}
	c := a.clone()
	c.join(b)
	if !c.covers(a) || !c.covers(b) || a.V[1] != 0 {
		t.Fatalf("join: %v (a %v)", c.V, a.V)
	}
	b.joinForeign(7, []uint32{1, 0, 0, 0})
	if c.covers(b) {
		t.Fatal("knowledge of another cluster is not covered by none")
	}
}

var (
	w0 = Thread{Rank: 0, Warp: 0, Lane: 0}
	w1 = Thread{Rank: 0, Warp: 1, Lane: 0}
)

func write(pc int32) Kind { return Kind{Write: true, PC: pc} }
func read(pc int32) Kind  { return Kind{PC: pc} }

// TestBarrierOrders: a write and a read by two warps race unless a named
// barrier both arrive at completes between them.
func TestBarrierOrders(t *testing.T) {
	for _, sync := range []bool{false, true} {
		c := NewCluster(NewGlobal(), 0, 1, 64)
		if r := c.Shared(w0, 0, 8, 4, 256, write(1)); r != nil {
			t.Fatal(r)
		}
		if sync {
			c.BarArrive(0, 0, 0, 1<<32-1)
			c.BarArrive(0, 1, 0, 1<<32-1)
			acc := c.BarTake(0, 0)
			c.BarWaiter(0, 0, 0, acc)
			c.BarWaiter(0, 0, 1, acc)
		}
		r := c.Shared(w1, 0, 8, 4, 256, read(2))
		if (r == nil) != sync {
			t.Fatalf("barrier %v: race %+v", sync, r)
		}
		if r != nil && (r.Prev.PC != 1 || r.Prev.Thread != w0 || !r.Prev.Write || r.Cur.Thread != w1) {
			t.Fatalf("race names %+v", r)
		}
	}
}

// TestElectedRelease: lane 0's mbarrier arrive releases lane 0's stores
// and, after bar.warp.sync, those of the other lanes.
func TestElectedRelease(t *testing.T) {
	for _, warpSync := range []bool{false, true} {
		c := NewCluster(NewGlobal(), 0, 1, 64)
		for l := range 32 {
			if r := c.Shared(Thread{0, 0, l}, 0, uint32(16+4*l), 4, 256, write(1)); r != nil {
				t.Fatal(r)
			}
		}
		if warpSync {
			c.WarpSync(0, 0, 1<<32-1)
		}
		key := MbarKey(0, 0)
		c.MbarArrive(w0, key, true, true)
		c.MbarWait(w1, key, true)
		if r := c.Shared(w1, 0, 16, 4, 256, read(2)); r != nil {
			t.Fatalf("lane 0's own store: %+v", r)
		}
		r := c.Shared(w1, 0, 16+4*5, 4, 256, read(2))
		if (r == nil) != warpSync {
			t.Fatalf("bar.warp.sync %v: race %+v", warpSync, r)
		}
	}
}

// TestScopes: a flag released at .cta scope by a thread of one cluster
// does not synchronise with an acquire in another; at .gpu it does.
func TestScopes(t *testing.T) {
	for _, scope := range []Scope{ScopeCTA, ScopeGPU} {
		g := NewGlobal()
		a := NewCluster(g, 0, 1, 32)
		if r := a.GlobalAccess(w0, 0x1000, 4, write(1)); r != nil {
			t.Fatal(r)
		}
		if r := a.GlobalAccess(w0, 0x2000, 4, Kind{Write: true, Scope: scope, PC: 2}); r != nil {
			t.Fatal(r)
		}
		a.Strong(w0, true, 0x2000, false, true, SemRelease, scope)
		b := NewCluster(g, 1, 1, 32)
		r := b.GlobalAccess(w0, 0x2000, 4, Kind{Scope: scope, PC: 3})
		if scope == ScopeCTA {
			if r == nil {
				t.Fatal("strong .cta accesses from two clusters do not race")
			}
			continue
		}
		if r != nil {
			t.Fatalf(".gpu flag: %+v", r)
		}
		b.Strong(w0, true, 0x2000, true, false, SemAcquire, scope)
		if r := b.GlobalAccess(w0, 0x1000, 4, read(4)); r != nil {
			t.Fatalf("data after a .gpu acquire: %+v", r)
		}
		// The lanes of a warp share what they acquire (docs/race.md).
		if r := b.GlobalAccess(Thread{0, 0, 1}, 0x1000, 4, read(5)); r != nil {
			t.Fatalf("the acquire covers the warp: %+v", r)
		}
	}
}

// TestAsyncObserve: an operation's write is known to a thread only once
// a wait observed it (or through a barrier after that wait).
func TestAsyncObserve(t *testing.T) {
	c := NewCluster(NewGlobal(), 0, 1, 64)
	c.Issue(w0, 1, 7)
	if r := c.OpShared(1, 0, 32, 16, 256, Kind{Write: true}); r != nil {
		t.Fatal(r)
	}
	if r := c.Shared(w1, 0, 32, 4, 256, read(8)); r == nil || !r.Prev.Agent || r.Prev.PC != 7 {
		t.Fatalf("a warp that never waited: %+v", r)
	}
	c = NewCluster(NewGlobal(), 0, 1, 64)
	c.Issue(w0, 1, 7)
	c.OpShared(1, 0, 32, 16, 256, Kind{Write: true})
	c.Observed(w0, 1)
	if r := c.Shared(w0, 0, 32, 4, 256, read(8)); r != nil {
		t.Fatalf("after the wait: %+v", r)
	}
}

// TestReadsBounded: many unordered reads keep at most maxReads entries,
// and an unordered write still races with one of them.
func TestReadsBounded(t *testing.T) {
	c := NewCluster(NewGlobal(), 0, 1, 256)
	for wi := range 8 {
		if r := c.Shared(Thread{0, wi, 3}, 0, 0, 4, 64, read(int32(wi))); r != nil {
			t.Fatal(r)
		}
	}
	if n := len(c.readsOf(0, 0)); n > maxReads {
		t.Fatalf("%d reads kept", n)
	}
	if r := c.Shared(Thread{0, 0, 5}, 0, 0, 4, 64, write(9)); r == nil || r.Prev.Write {
		t.Fatalf("write after unordered reads: %+v", r)
	}
}
