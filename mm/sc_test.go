package mm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// scOutcomes runs every interleaving of a straight-line program on one flat
// memory, each instruction atomic: sequential consistency, which the model
// must allow (an SC execution satisfies every axiom of §8.10). It returns
// each final state in the form of OutcomeCount.State for the condition
// allTerms writes.
func scOutcomes(prog *Program) []string {
	mem := append([]int64(nil), prog.PhysInit...)
	regs := make([]map[string]int64, len(prog.Threads))
	for t := range regs {
		regs[t] = map[string]int64{}
	}
	pc := make([]int, len(prog.Threads))
	seen := map[string]bool{}
	var out []string
	var rec func()
	rec = func() {
		progressed := false
		for t := range prog.Threads {
			if pc[t] == len(prog.Threads[t].Code) {
				continue
			}
			progressed = true
			in := &prog.Threads[t].Code[pc[t]]
			saveMem := append([]int64(nil), mem...)
			saveReg := map[string]int64{}
			for k, v := range regs[t] {
				saveReg[k] = v
			}
			scStep(prog, in, mem, regs[t])
			pc[t]++
			rec()
			pc[t]--
			mem, regs[t] = saveMem, saveReg
		}
		if progressed {
			return
		}
		var terms []string
		for t := range prog.Threads {
			for _, r := range []string{"r0", "r1", "r2"} {
				if prog.Threads[t].namesReg(r) { // as allTerms
					terms = append(terms, fmt.Sprintf("P%d:%s=%d", t, r, regs[t][r]))
				}
			}
		}
		for i, l := range prog.Locs {
			terms = append(terms, fmt.Sprintf("%s=%d", l.Name, mem[prog.Locs[i].Phys]))
		}
		s := strings.Join(terms, "; ")
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	rec()
	return out
}

func scStep(prog *Program, in *Instr, mem []int64, regs map[string]int64) {
	val := func(o Operand) int64 {
		if o.Reg != "" {
			return regs[o.Reg]
		}
		return o.Val
	}
	switch in.Op {
	case OpLoad:
		regs[in.Dst] = mem[prog.Locs[prog.LocIndex(in.Loc)].Phys]
	case OpStore:
		mem[prog.Locs[prog.LocIndex(in.Loc)].Phys] = val(in.Args[0])
	case OpRMW:
		p := prog.Locs[prog.LocIndex(in.Loc)].Phys
		old := mem[p]
		mem[p] = arith(in.RMW, old, val(in.Args[0]))
		if in.Dst != "" {
			regs[in.Dst] = old
		}
	}
}

// randomLitmus writes a random straight-line test: 2 or 3 threads placed
// in one or two CTAs, each with up to 3 loads, stores, RMWs and fences on
// x and y.
func randomLitmus(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("PTX random\n{ x=0; y=0; }\n")
	n := 2 + r.IntN(2)
	for t := range n {
		if t > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "P%d@cta %d,gpu 0", t, r.IntN(2))
	}
	b.WriteString(" ;\n")
	scopes := []string{"cta", "gpu", "sys"}
	locs := []string{"x", "y"}
	for row := range 3 {
		for t := range n {
			if t > 0 {
				b.WriteString(" | ")
			}
			loc, sc := locs[r.IntN(2)], scopes[r.IntN(3)]
			reg := fmt.Sprintf("r%d", row)
			switch r.IntN(8) {
			case 0:
				fmt.Fprintf(&b, "st.weak %s, %d", loc, t+1)
			case 1:
				fmt.Fprintf(&b, "st.%s.%s %s, %d", []string{"relaxed", "release"}[r.IntN(2)], sc, loc, t+1)
			case 2:
				fmt.Fprintf(&b, "ld.weak %s, %s", reg, loc)
			case 3:
				fmt.Fprintf(&b, "ld.%s.%s %s, %s", []string{"relaxed", "acquire"}[r.IntN(2)], sc, reg, loc)
			case 4:
				fmt.Fprintf(&b, "fence.%s.%s", []string{"sc", "acq_rel"}[r.IntN(2)], sc)
			case 5:
				fmt.Fprintf(&b, "atom.%s.%s.add %s, %s, 1", []string{"relaxed", "acq_rel"}[r.IntN(2)], sc, reg, loc)
			case 6:
				fmt.Fprintf(&b, "atom.acquire.%s.exch %s, %s, %d", sc, reg, loc, t+3)
			default:
				fmt.Fprintf(&b, "red.release.%s.add %s, 2", sc, loc)
			}
		}
		b.WriteString(" ;\n")
	}
	b.WriteString("exists (x == 0)\n")
	return b.String()
}

// TestSequentialConsistencyAllowed checks, on random tests, that every
// sequentially consistent outcome is allowed under both models: the axioms
// must never forbid an execution in which instructions run one at a time
// in some interleaving. Seeded, so it is reproducible.
func TestSequentialConsistencyAllowed(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := 150
	if testing.Short() {
		cases = 30
	}
	checked, outcomes := 0, 0
	for range cases {
		src := randomLitmus(r)
		prog, err := ParseLitmus([]byte(src))
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		src = strings.Replace(src, "exists (x == 0)", "exists ("+allTerms(prog)+")", 1)
		if prog, err = ParseLitmus([]byte(src)); err != nil {
			t.Fatal(err)
		}
		allowed := map[Model]map[string]bool{}
		for _, m := range []Model{PTXv60, PTXv75} {
			res, err := Check(prog, m)
			if errors.Is(err, ErrTooLarge) {
				break // beyond the enumeration bounds (fences or writes per location)
			}
			if err != nil {
				t.Fatal(err)
			}
			allowed[m] = map[string]bool{}
			for _, o := range res.Outcomes {
				allowed[m][o.State] = true
			}
		}
		if len(allowed) < 2 {
			continue
		}
		checked++
		for _, outcome := range scOutcomes(prog) {
			outcomes++
			for m, set := range allowed {
				if !set[outcome] {
					t.Fatalf("%s forbids the SC outcome\n  %s\nof\n%s", m, outcome, src)
				}
			}
		}
	}
	t.Logf("%d of %d random tests within bounds, %d SC outcomes allowed under both models", checked, cases, outcomes)
	if checked < cases*3/4 {
		t.Errorf("only %d of %d random tests within the enumeration bounds", checked, cases)
	}
}

// allTerms is a condition that holds always and reads every register the
// random tests use and every location, so that the outcomes list whole
// final states.
func allTerms(prog *Program) string {
	var terms []string
	for t := range prog.Threads {
		for _, r := range []string{"r0", "r1", "r2"} {
			if prog.Threads[t].namesReg(r) { // a register the thread never names is an error
				terms = append(terms, fmt.Sprintf("P%d:%s == P%d:%s", t, r, t, r))
			}
		}
	}
	for _, l := range prog.Locs {
		terms = append(terms, l.Name+" == "+l.Name)
	}
	return strings.Join(terms, ` /\ `)
}

// randomFencedLitmus writes a random test whose accesses are all strong at
// .sys scope with fence.sc.sys between consecutive instructions: the
// C++ sequentially consistent mapping of the PTX ABI, under which the model
// allows only sequentially consistent outcomes.
func randomFencedLitmus(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("PTX fenced\n{ x=0; y=0; }\n")
	n := 2 + r.IntN(2)
	for t := range n {
		if t > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "P%d@cta %d,gpu %d", t, r.IntN(2), r.IntN(2))
	}
	b.WriteString(" ;\n")
	for row := range 3 {
		for t := range n {
			if t > 0 {
				b.WriteString(" | ")
			}
			if row%2 == 1 {
				b.WriteString("fence.sc.sys")
				continue
			}
			loc, reg := []string{"x", "y"}[r.IntN(2)], fmt.Sprintf("r%d", row/2)
			switch r.IntN(3) {
			case 0:
				fmt.Fprintf(&b, "st.relaxed.sys %s, %d", loc, t+1)
			case 1:
				fmt.Fprintf(&b, "ld.relaxed.sys %s, %s", reg, loc)
			default:
				fmt.Fprintf(&b, "atom.relaxed.sys.add %s, %s, %d", reg, loc, t+1)
			}
		}
		b.WriteString(" ;\n")
	}
	b.WriteString("exists (x == 0)\n")
	return b.String()
}

// TestFenceSCRestoresSC checks, on random tests in the sequentially
// consistent mapping, that every outcome the model allows is sequentially
// consistent (§8.9.3, §8.10.2: fence-SC order is total over morally strong
// fence.sc operations).
func TestFenceSCRestoresSC(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := 200
	if testing.Short() {
		cases = 40
	}
	checked := 0
	for range cases {
		src := randomFencedLitmus(r)
		prog, err := ParseLitmus([]byte(src))
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		src = strings.Replace(src, "exists (x == 0)", "exists ("+allTerms(prog)+")", 1)
		if prog, err = ParseLitmus([]byte(src)); err != nil {
			t.Fatal(err)
		}
		sc := map[string]bool{}
		for _, o := range scOutcomes(prog) {
			sc[o] = true
		}
		for _, m := range []Model{PTXv60, PTXv75} {
			res, err := Check(prog, m)
			if errors.Is(err, ErrTooLarge) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, o := range res.Outcomes {
				if !sc[o.State] {
					t.Fatalf("%s allows the non-SC outcome\n  %s\nof\n%s", m, o.State, src)
				}
			}
		}
	}
	t.Logf("%d of %d random fenced tests checked (both models)", checked, 2*cases)
	if checked < cases {
		t.Errorf("only %d checks within bounds", checked)
	}
}
