package emu

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/mm"
)

// A message-passing kernel: one thread stores data (weakly) and then
// publishes a flag; the other reads the flag and then the data. The
// memory model (mm, `ptxkit litmus`) decides whether the consumer can see
// the flag set and the data stale. When the two flag accesses are morally
// strong, the data accesses race exactly when that is possible, and the
// race detector must say so. When they are not (a weak flag, a scope that
// does not reach the other thread), the flag accesses themselves race and
// must be reported, whatever the data: two fence.sc can still forbid the
// stale read (fence-SC order), so the model's answer is not compared.
const mpKernel = `//@ exists (P1:%%r1 == 1 /\ P1:%%r2 != 42)
.version 8.0
.target sm_90
.address_size 64

.global .u32 data;
.global .u32 flag;
.global .u32 seen;

.visible .entry mp()
{
	.reg .u32 %%r<4>;
	.reg .pred %%p<3>;
	mov.u32 %%r0, %s;
	setp.eq.u32 %%p1, %%r0, 0;
	@%%p1 bra PRODUCER;
	setp.ne.u32 %%p2, %%r0, %d;
	@%%p2 bra END;
	%s
	ld.global.u32 %%r2, [data];
	st.global.u32 [seen], %%r1;
	ret;
PRODUCER:
	st.global.u32 [data], 42;
	%s
END:
	ret;
}
`

// mpPlacement puts the two threads in two warps of one CTA, two CTAs of
// one cluster, or two clusters.
type mpPlacement struct {
	name, role, threads string
	consumer            int
	reach               int // the narrowest scope (index into mpScopes) that holds both threads
	cfg                 Config
}

var mpPlacements = []mpPlacement{
	{"warps", "%tid.x", "0/0,0/32", 32, 0, Config{Grid: dims(1, 1, 1), Block: dims(64, 1, 1)}},
	{"cluster", "%ctaid.x", "0@0,1@0", 1, 1, Config{Grid: dims(2, 1, 1), Block: dims(1, 1, 1), Cluster: dims(2, 1, 1)}},
	{"clusters", "%ctaid.x", "0,1", 1, 2, Config{Grid: dims(2, 1, 1), Block: dims(1, 1, 1)}},
}

var mpScopes = []string{"cta", "cluster", "gpu", "sys"}

// mpProducer returns a random way of publishing the flag and the scope
// of its flag access (index into mpScopes, -1 for a weak one).
func mpProducer(r *rand.Rand) (string, int) {
	si, f := r.IntN(4), mpScopes[r.IntN(4)]
	s := mpScopes[si]
	fence := []string{"acq_rel", "sc"}[r.IntN(2)]
	switch r.IntN(6) {
	case 0:
		return "st.release." + s + ".global.u32 [flag], 1;", si
	case 1:
		return "fence." + fence + "." + f + ";\n\tst.relaxed." + s + ".global.u32 [flag], 1;", si
	case 2:
		return "st.relaxed." + s + ".global.u32 [flag], 1;", si
	case 3:
		return "st.volatile.global.u32 [flag], 1;", 3
	case 4:
		return "atom.release." + s + ".global.exch.b32 %r3, [flag], 1;", si
	}
	return "st.global.u32 [flag], 1;", -1
}

// mpConsumer returns a random way of reading the flag into %r1 and the
// scope of its flag access (-1 for a weak one).
func mpConsumer(r *rand.Rand) (string, int) {
	si, f := r.IntN(4), mpScopes[r.IntN(4)]
	s := mpScopes[si]
	fence := []string{"acq_rel", "sc"}[r.IntN(2)]
	switch r.IntN(6) {
	case 0:
		return "ld.acquire." + s + ".global.u32 %r1, [flag];", si
	case 1:
		return "ld.relaxed." + s + ".global.u32 %r1, [flag];\n\tfence." + fence + "." + f + ";", si
	case 2:
		return "ld.relaxed." + s + ".global.u32 %r1, [flag];", si
	case 3:
		return "ld.volatile.global.u32 %r1, [flag];\n\tfence." + fence + "." + f + ";", 3
	case 4:
		return "atom.acquire." + s + ".global.or.b32 %r1, [flag], 0;", si
	}
	return "ld.global.u32 %r1, [flag];", -1
}

// TestRaceAgreesWithLitmus runs seeded random message-passing kernels
// through the memory-model checker and through the emulator with the
// race detector, and requires the same verdict.
func TestRaceAgreesWithLitmus(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 8))
	n := 200
	if testing.Short() {
		n = 40
	}
	races, compared, stale := 0, 0, 0
	for i := range n {
		pl := mpPlacements[r.IntN(len(mpPlacements))]
		prod, ps := mpProducer(r)
		cons, cs := mpConsumer(r)
		strong := ps >= pl.reach && cs >= pl.reach
		src := fmt.Sprintf(mpKernel, pl.role, pl.consumer, cons, prod)
		specs, err := mm.ParseThreadSpecs(pl.threads)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := mm.ParsePTXKernel("mp.ptx", []byte(src), specs)
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, src)
		}
		res, err := mm.Check(prog, mm.PTXv75)
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, src)
		}
		cfg := pl.cfg
		cfg.Race = true
		run := launchReport(t, src, cfg)
		if run.Report != nil && run.Report.Rule != ruleDataRace {
			t.Fatalf("case %d: %v\n%s", i, run.Report, src)
		}
		if run.Report == nil && seenFlag(run) != 1 {
			t.Fatalf("case %d: the consumer ran before the producer; the comparison needs the flag seen set\n%s", i, src)
		}
		raced := run.Report != nil
		if raced {
			races++
		}
		if !strong {
			if !raced {
				t.Errorf("case %d (%s): the flag accesses are not morally strong, and no race was reported\n  producer: %s\n  consumer: %s",
					i, pl.name, prod, cons)
			}
			continue
		}
		compared++
		if res.Reachable {
			stale++
		}
		if raced != res.Reachable {
			t.Errorf("case %d (%s): the memory model says a stale read is %v, the race detector %v\n  producer: %s\n  consumer: %s\n  %v",
				i, pl.name, map[bool]string{true: "possible", false: "impossible"}[res.Reachable],
				map[bool]string{true: "reports a race", false: "reports none"}[raced],
				strings.ReplaceAll(prod, "\n\t", " "), strings.ReplaceAll(cons, "\n\t", " "), run.Report)
		}
	}
	t.Logf("%d of %d message-passing kernels race; %d have morally strong flag accesses, of which the model allows a stale read in %d", races, n, compared, stale)
	if stale == 0 || stale == compared {
		t.Fatalf("%d of %d compared cases allow a stale read: the generator does not cover both verdicts", stale, compared)
	}
}

// seenFlag returns the flag value the consumer stored in "seen".
func seenFlag(res *Result) uint32 {
	for _, r := range res.Mem.global.regs {
		if r.Name == "seen" {
			return uint32(r.Data[0]) | uint32(r.Data[1])<<8 | uint32(r.Data[2])<<16 | uint32(r.Data[3])<<24
		}
	}
	return 0
}
