package emu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// FuzzTcgen05 emulates generated kernels that allocate, store, load and
// free Tensor Memory with arbitrary forms, addresses, column counts, split
// offsets, guards and allocation orders. Every run must end cleanly or
// with a sanitizer report; nothing may panic or hang.
func FuzzTcgen05(f *testing.F) {
	f.Add(uint8(3), uint8(3), false, uint16(0), uint16(0), uint16(64), uint8(0), uint8(0))
	f.Add(uint8(4), uint8(2), true, uint16(8), uint16(4), uint16(32), uint8(1), uint8(1))
	f.Add(uint8(0), uint8(7), false, uint16(0), uint16(0x21), uint16(512), uint8(2), uint8(2))
	f.Add(uint8(2), uint8(5), true, uint16(0), uint16(1<<8|3), uint16(48), uint8(3), uint8(3))
	f.Fuzz(func(t *testing.T, shape, numLog uint8, packed bool, imm, taddrOff, nCols uint16, guard, order uint8) {
		form := tmem.Form{Shape: tmem.Shapes[int(shape)%len(tmem.Shapes)], Num: 1 << (numLog % 8), Packed: packed, SplitOffset: int(imm % 600)}
		if form.Regs() > tmem.MaxRegs {
			form.Num = tmem.MaxRegs / form.Shape.BaseRegs()
		}
		src := fuzzKernel(form, int(taddrOff), int(nCols%1100), guard%4, order%4)
		m, errs := parser.ParseString("fuzz.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("generated kernel does not parse: %v\n%s", errs, src)
		}
		p, errs := Decode(m, "")
		if errs.HasErrors() {
			return // e.g. an immHalfSplitoff outside Tensor Memory
		}
		res, err := execute(p, Config{Block: [3]int{128, 1, 1}, MaxSteps: 1 << 16, Async: AsyncPolicy(order % 3), Seed: uint64(order)},
			[]Arg{{IsBuffer: true, Buffer: make([]byte, 128*128*4)}})
		if err != nil {
			t.Fatal(err)
		}
		if r := res.Report; r != nil && !strings.HasPrefix(r.Rule, "tcgen05-") && r.Rule != RuleMaxSteps {
			t.Fatalf("report outside the tcgen05 rules: %v\n%s", r, src)
		}
		if res.Report == nil && (guard%4 == 1 || order%4 != 0) {
			t.Fatalf("diverged, unwaited or leaking kernel ran clean:\n%s", src)
		}
	})
}

// fuzzKernel is formKernel with knobs: a taddr offset added to the base
// (lane in bits 15:8, column in bits 7:0 of off), the allocation size, a
// guard pattern (0 none, 1 lanes < 16, 2 warps < 2, 3 threads >= 100
// exit first) and an ordering variant (0 st, wait, ld; 1 ld before wait;
// 2 no wait; 3 no dealloc).
func fuzzKernel(f tmem.Form, off, nCols int, guard, order uint8) string {
	n := f.Regs()
	var b strings.Builder
	fmt.Fprintf(&b, `.version 8.6
.target sm_100a
.address_size 64
.entry k(.param .u64 out)
{
	.reg .b32 %%s<%d>;
	.reg .b32 %%r<16>;
	.reg .b64 %%rd<4>;
	.reg .pred %%p<3>;
	.shared .align 4 .b32 slot;
	mov.u32 %%r0, %%tid.x;
	shr.u32 %%r7, %%r0, 5;
	and.b32 %%r8, %%r0, 31;
	setp.eq.u32 %%p0, %%r7, 0;
	mov.u32 %%r1, slot;
	mov.u32 %%r6, %d;
	@%%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%%r1], %%r6;
	bar.sync 0;
	ld.shared.b32 %%r2, [%%r1];
	shl.b32 %%r4, %%r7, 21;
	add.s32 %%r3, %%r2, %%r4;
	add.s32 %%r3, %%r3, %d;
`, n, nCols, (off>>8&0x7f)<<16|off&0xff)
	switch guard {
	case 1:
		b.WriteString("\tsetp.lt.u32 %p1, %r8, 16;\n")
	case 2:
		b.WriteString("\tsetp.lt.u32 %p1, %r7, 2;\n")
	case 3:
		b.WriteString("\tsetp.ge.u32 %p2, %r0, 100;\n\t@%p2 exit;\n\tsetp.eq.u32 %p1, %r0, %r0;\n")
	default:
		b.WriteString("\tsetp.eq.u32 %p1, %r0, %r0;\n")
	}
	regs := make([]string, n)
	for j := range regs {
		regs[j] = fmt.Sprintf("%%s%d", j)
	}
	vec := "{" + strings.Join(regs, ", ") + "}"
	q := strings.TrimPrefix(strings.Fields(f.Qualifiers(false))[0], ".")
	lq := strings.TrimPrefix(strings.Fields(f.Qualifiers(true))[0], ".")
	st := fmt.Sprintf("\t@%%p1 tcgen05.st.sync.aligned.%s.b32 [%%r3], %s;\n", q, vec)
	ld := fmt.Sprintf("\t@%%p1 tcgen05.ld.sync.aligned.%s.b32 %s, [%%r3];\n", lq, vec)
	if f.Shape == tmem.Shape16x32bx2 {
		st = fmt.Sprintf("\t@%%p1 tcgen05.st.sync.aligned.%s.b32 [%%r3], %d, %s;\n", q, f.SplitOffset, vec)
		ld = fmt.Sprintf("\t@%%p1 tcgen05.ld.sync.aligned.%s.b32 %s, [%%r3], %d;\n", lq, vec, f.SplitOffset)
	}
	wait := "\t@%p1 tcgen05.wait::st.sync.aligned;\n"
	switch order {
	case 1:
		b.WriteString(st + ld + wait)
	case 2:
		b.WriteString(st + ld)
	default:
		b.WriteString(st + wait + ld)
	}
	b.WriteString("\t@%p1 tcgen05.wait::ld.sync.aligned;\n\tbar.sync 0;\n")
	if order != 3 {
		b.WriteString("\t@%p0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, %r6;\n")
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}
