package tmem

import "testing"

func mustAlloc(t *testing.T, a *Allocator, n int) Addr {
	t.Helper()
	addr, ok, err := a.TryAlloc(CTAGroup1, n)
	if err != nil || !ok {
		t.Fatalf("TryAlloc(%d) = %v, %v, %v", n, addr, ok, err)
	}
	return addr
}

func TestCheckNCols(t *testing.T) {
	for _, n := range []int{32, 64, 128, 256, 512} {
		if err := CheckNCols(n); err != nil {
			t.Errorf("CheckNCols(%d) = %v", n, err)
		}
	}
	for _, n := range []int{0, 1, 16, 31, 33, 48, 96, 1024, -32} {
		wantRule(t, CheckNCols(n), RuleNCols)
	}
	var a Allocator
	_, ok, err := a.TryAlloc(CTAGroup1, 48)
	wantRule(t, err, RuleNCols)
	if ok || a.FreeColumns() != 512 {
		t.Fatal("invalid nCols allocated something")
	}
}

func TestAllocPlacement(t *testing.T) {
	var a Allocator
	// Naturally aligned first fit.
	if got := mustAlloc(t, &a, 64); got != MakeAddr(0, 0) {
		t.Fatalf("first 64 at %v", got)
	}
	if got := mustAlloc(t, &a, 32); got != MakeAddr(0, 64) {
		t.Fatalf("then 32 at %v", got)
	}
	if got := mustAlloc(t, &a, 64); got != MakeAddr(0, 128) {
		t.Fatalf("then 64 at %v, want column 128 (aligned)", got)
	}
	if got := mustAlloc(t, &a, 32); got != MakeAddr(0, 96) {
		t.Fatalf("then 32 fills the hole at %v", got)
	}
	if a.FreeColumns() != 512-192 {
		t.Fatalf("free = %d", a.FreeColumns())
	}
	for col, want := range map[int]bool{0: true, 63: true, 64: true, 191: true, 192: false, 511: false, -1: false, 512: false} {
		if a.Allocated(col) != want {
			t.Errorf("Allocated(%d) = %v", col, !want)
		}
	}
	live := a.Live()
	if len(live) != 4 || live[0].Column != 0 || live[1].Column != 64 || live[2].Column != 96 || live[3].Column != 128 {
		t.Fatalf("Live() = %+v", live)
	}
}

func TestAllocWouldBlock(t *testing.T) {
	var a Allocator
	mustAlloc(t, &a, 256)
	b := mustAlloc(t, &a, 256)
	addr, ok, err := a.TryAlloc(CTAGroup1, 32)
	if ok || err != nil || addr != 0 {
		t.Fatalf("full TMEM: TryAlloc = %v, %v, %v; want would-block", addr, ok, err)
	}
	if err := a.Dealloc(CTAGroup1, b, 256); err != nil {
		t.Fatal(err)
	}
	if got := mustAlloc(t, &a, 32); got != MakeAddr(0, 256) {
		t.Fatalf("after dealloc: %v", got)
	}
	// Fragmentation also blocks: 32 free columns at 256+32.. but 512 never fits.
	if _, ok, err := a.TryAlloc(CTAGroup1, 512); ok || err != nil {
		t.Fatalf("512 with columns in use: %v %v", ok, err)
	}
}

func TestAllocAfterRelinquish(t *testing.T) {
	var a Allocator
	mustAlloc(t, &a, 32)
	if err := a.Relinquish(CTAGroup1); err != nil {
		t.Fatal(err)
	}
	if !a.Relinquished() {
		t.Fatal("Relinquished() = false")
	}
	_, ok, err := a.TryAlloc(CTAGroup1, 32)
	wantRule(t, err, RuleAllocAfterRelinquish)
	if ok {
		t.Fatal("allocated after relinquish")
	}
	// Dealloc stays legal.
	if err := a.Dealloc(CTAGroup1, 0, 32); err != nil {
		t.Fatalf("dealloc after relinquish: %v", err)
	}
}

func TestMixedCTAGroup(t *testing.T) {
	var a Allocator
	if _, _, err := a.TryAlloc(CTAGroup2, 32); err != nil {
		t.Fatal(err)
	}
	_, _, err := a.TryAlloc(CTAGroup1, 32)
	wantRule(t, err, RuleMixedCTAGroup)
	wantRule(t, a.Relinquish(CTAGroup1), RuleMixedCTAGroup)
	wantRule(t, a.Dealloc(CTAGroup1, 0, 32), RuleMixedCTAGroup)
	if err := a.Dealloc(CTAGroup2, 0, 32); err != nil {
		t.Fatalf("dealloc with the same group: %v", err)
	}
	if a.Group() != CTAGroup2 {
		t.Fatalf("Group() = %v", a.Group())
	}
	wantRule(t, a.UseGroup(3), RuleCTAGroup)
}

func TestDealloc(t *testing.T) {
	var a Allocator
	addr := mustAlloc(t, &a, 128)
	wantRule(t, a.Dealloc(CTAGroup1, addr, 64), RuleDealloc)
	wantRule(t, a.Dealloc(CTAGroup1, MakeAddr(0, 32), 32), RuleDealloc)
	wantRule(t, a.Dealloc(CTAGroup1, MakeAddr(1, 0), 128), RuleDealloc)
	wantRule(t, a.Dealloc(CTAGroup1, addr, 100), RuleNCols)
	if err := a.Dealloc(CTAGroup1, addr, 128); err != nil {
		t.Fatal(err)
	}
	wantRule(t, a.Dealloc(CTAGroup1, addr, 128), RuleDealloc) // double free
	if a.FreeColumns() != 512 {
		t.Fatalf("free = %d", a.FreeColumns())
	}
}

func TestCheckExit(t *testing.T) {
	var a Allocator
	if err := a.CheckExit(); err != nil {
		t.Fatalf("empty: %v", err)
	}
	x := mustAlloc(t, &a, 64)
	mustAlloc(t, &a, 32)
	wantRule(t, a.CheckExit(), RuleMissingDealloc)
	a.Dealloc(CTAGroup1, x, 64)
	wantRule(t, a.CheckExit(), RuleMissingDealloc)
	a.Dealloc(CTAGroup1, MakeAddr(0, 64), 32)
	if err := a.CheckExit(); err != nil {
		t.Fatalf("after dealloc: %v", err)
	}
}

func TestAllocPair(t *testing.T) {
	var a, b Allocator
	// The peer already uses columns 0..63 (allocated earlier by the pair
	// and freed only in a).
	if _, ok, err := a.TryAllocPair(&b, 64); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := a.Dealloc(CTAGroup2, 0, 64); err != nil {
		t.Fatal(err)
	}
	addr, ok, err := a.TryAllocPair(&b, 32)
	if !ok || err != nil || addr != MakeAddr(0, 64) {
		t.Fatalf("pair alloc = %v %v %v, want column 64 (free in both)", addr, ok, err)
	}
	if !b.Allocated(64) || !a.Allocated(64) {
		t.Fatal("pair alloc not in both CTAs")
	}
	var c Allocator
	c.UseGroup(CTAGroup1)
	_, _, err = a.TryAllocPair(&c, 32)
	wantRule(t, err, RuleMixedCTAGroup)
	// Full in one CTA blocks the pair.
	var d, e Allocator
	d.TryAllocPair(&e, 512)
	e.Dealloc(CTAGroup2, 0, 512)
	if _, ok, err := e.TryAllocPair(&d, 32); ok || err != nil {
		t.Fatalf("pair with a full peer: %v %v", ok, err)
	}
}

func TestAddr(t *testing.T) {
	a := MakeAddr(97, 300)
	if a.Lane() != 97 || a.Column() != 300 || uint32(a) != 97<<16|300 {
		t.Fatalf("MakeAddr(97, 300) = %#x", uint32(a))
	}
	if Quarter(5) != 1 || Quarter(3) != 3 {
		t.Fatal("Quarter")
	}
	if s := a.String(); s != "lane 97, column 300 (0x0061012c)" {
		t.Fatalf("String() = %q", s)
	}
}
