package emu

import (
	"fmt"
	"strings"
	"testing"
)

// The classic litmus shapes as kernels: store buffering, load buffering,
// IRIW and 2+2W, each thread of the test a thread of the kernel placed in
// its own warp of one CTA, its own CTA of one cluster, or its own cluster.
// In these shapes no thread reads what another released before the
// conflicting accesses, so nothing orders a conflicting pair: the kernel
// is race-free exactly when every pair is morally strong (PTX ISA §8.6:
// both strong, each one's scope including the other thread), and it must
// be reported otherwise, under every schedule.

// litmusShape is a litmus test's threads: each a list of accesses,
// "st x" or "ld y".
type litmusShape struct {
	name    string
	threads [][]string
}

var litmusShapes = []litmusShape{
	{"SB", [][]string{{"st x", "ld y"}, {"st y", "ld x"}}},
	{"LB", [][]string{{"ld x", "st y"}, {"ld y", "st x"}}},
	{"IRIW", [][]string{{"st x"}, {"st y"}, {"ld x", "ld y"}, {"ld y", "ld x"}}},
	{"2+2W", [][]string{{"st x", "st y"}, {"st y", "st x"}}},
}

// litmusKind is how a shape's accesses are made: form gives an access's
// PTX (op "st" or "ld", location, register number) at scope s; between
// puts a fence between a thread's accesses; weak says the accesses are
// not strong.
type litmusKind struct {
	name    string
	weak    bool
	between string
	form    func(op, loc, s string, r int) string
}

func plainForm(sem string) func(op, loc, s string, r int) string {
	return func(op, loc, s string, r int) string {
		q := ""
		if sem != "" {
			q = "." + sem + "." + s
			if op == "st" && sem == "acquire" {
				q = ".release." + s
			}
		}
		if op == "st" {
			return fmt.Sprintf("st%s.global.u32 [%s], %d;", q, loc, r+1)
		}
		return fmt.Sprintf("ld%s.global.u32 %%r%d, [%s];", q, r, loc)
	}
}

func atomForm(op, loc, s string, r int) string {
	if op == "st" {
		return fmt.Sprintf("atom.%s.global.exch.b32 %%r%d, [%s], %d;", s, r, loc, r+1)
	}
	return fmt.Sprintf("atom.%s.global.or.b32 %%r%d, [%s], 0;", s, r, loc)
}

var litmusKinds = []litmusKind{
	{name: "weak", weak: true, form: plainForm("")},
	{name: "weak+fence.sc", weak: true, between: "fence.sc.%s;", form: plainForm("")},
	{name: "relaxed", form: plainForm("relaxed")},
	{name: "release/acquire", form: plainForm("acquire")},
	{name: "relaxed+fence.sc", between: "fence.sc.%s;", form: plainForm("relaxed")},
	{name: "relaxed+fence.acq_rel", between: "fence.acq_rel.%s;", form: plainForm("relaxed")},
	{name: "atomics", form: atomForm},
	{name: "red", form: func(op, loc, s string, r int) string {
		if op == "st" {
			return fmt.Sprintf("red.relaxed.%s.global.add.u32 [%s], %d;", s, loc, r+1)
		}
		return plainForm("relaxed")(op, loc, s, r)
	}},
}

// shapeKernel writes a shape as a kernel: thread i of the test is the one
// whose role (role register expression) is i.
func shapeKernel(sh litmusShape, k litmusKind, scope, role string, step int) string {
	var b strings.Builder
	b.WriteString(".version 8.0\n.target sm_90\n.address_size 64\n.global .u32 x;\n.global .u32 y;\n.global .u32 out[16];\n")
	b.WriteString(".visible .entry k()\n{\n\t.reg .u32 %r<16>;\n\t.reg .u32 %role;\n\t.reg .pred %p;\n")
	fmt.Fprintf(&b, "\tmov.u32 %%role, %s;\n", role)
	for i := range sh.threads {
		fmt.Fprintf(&b, "\tsetp.eq.u32 %%p, %%role, %d;\n\t@%%p bra P%d;\n", i*step, i)
	}
	b.WriteString("\tret;\n")
	for i, th := range sh.threads {
		fmt.Fprintf(&b, "P%d:\n", i)
		for j, acc := range th {
			if j > 0 && k.between != "" {
				fmt.Fprintf(&b, "\t"+k.between+"\n", scope)
			}
			op, loc, _ := strings.Cut(acc, " ")
			fmt.Fprintf(&b, "\t%s\n", k.form(op, loc, scope, 2+i*4+j))
		}
		// Keep what the thread read (a result to compare, as a litmus
		// outcome would).
		fmt.Fprintf(&b, "\tst.global.u32 [out+%d], %%r%d;\n\tret;\n", 4*i, 2+i*4)
	}
	b.WriteString("}\n")
	return b.String()
}

// TestRaceLitmusShapes runs SB, LB, IRIW and 2+2W with weak accesses (with
// and without fence.sc), relaxed, release/acquire, fenced, atomic and red
// accesses at each scope, in each placement, under five schedules: a
// kernel is reported exactly when one of its conflicting pairs is not
// morally strong.
func TestRaceLitmusShapes(t *testing.T) {
	scopes := []string{"cta", "cluster", "gpu", "sys"}
	races, clean := 0, 0
	for _, sh := range litmusShapes {
		n := len(sh.threads)
		placements := []struct {
			name  string
			role  string
			step  int
			reach int // the narrowest scope (index into scopes) that holds the threads
			cfg   Config
		}{
			{"warps", "%tid.x", 32, 0, Config{Grid: dims(1, 1, 1), Block: dims(32*n, 1, 1)}},
			{"cluster", "%ctaid.x", 1, 1, Config{Grid: dims(n, 1, 1), Block: dims(1, 1, 1), Cluster: dims(n, 1, 1)}},
			{"clusters", "%ctaid.x", 1, 2, Config{Grid: dims(n, 1, 1), Block: dims(1, 1, 1)}},
		}
		for _, pl := range placements {
			for _, k := range litmusKinds {
				for si, s := range scopes {
					if k.weak && k.between == "" && si > 0 {
						continue // no scope to vary
					}
					src := shapeKernel(sh, k, s, pl.role, pl.step)
					p := compile(t, src)
					want := k.weak || si < pl.reach
					for seed := range uint64(5) {
						cfg := pl.cfg
						cfg.Race, cfg.Seed, cfg.MaxSteps = true, seed, 1<<16
						if seed > 0 {
							cfg.Async = AsyncRandom
						}
						res, err := execute(p, cfg, nil)
						if err != nil {
							t.Fatal(err)
						}
						got := res.Report != nil && res.Report.Rule == ruleDataRace
						if res.Report != nil && !got {
							t.Fatalf("%s %s %s .%s seed %d: %v\n%s", sh.name, pl.name, k.name, s, seed, res.Report, src)
						}
						if got != want {
							t.Errorf("%s %s %s .%s seed %d: race reported %v, want %v: %v\n%s", sh.name, pl.name, k.name, s, seed, got, want, res.Report, src)
							break
						}
					}
					if want {
						races++
					} else {
						clean++
					}
				}
			}
		}
	}
	t.Logf("%d racy and %d race-free kernels", races, clean)
}
