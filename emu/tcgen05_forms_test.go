package emu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/emu/tmem"
)

// formKernel builds a warpgroup kernel that stores f from registers
// %s<j> = tid*1000 + j, waits, loads f back into %d<j> and writes them to
// out[tid*R + j].
func formKernel(f tmem.Form) string {
	n := f.Regs()
	var b strings.Builder
	fmt.Fprintf(&b, `.version 8.6
.target sm_100a
.address_size 64
.entry k(.param .u64 out)
{
	.reg .b32 %%s<%d>;
	.reg .b32 %%d<%d>;
	.reg .b32 %%r<16>;
	.reg .b64 %%rd<4>;
	.reg .pred %%p<2>;
	.shared .align 4 .b32 slot;
	mov.u32 %%r0, %%tid.x;
	shr.u32 %%r7, %%r0, 5;
	setp.eq.u32 %%p0, %%r7, 0;
	mov.u32 %%r1, slot;
	@%%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%%r1], 512;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	ld.shared.b32 %%r2, [%%r1];
	shl.b32 %%r4, %%r7, 21;
	add.s32 %%r3, %%r2, %%r4;
	mul.lo.u32 %%r5, %%r0, 1000;
`, n, n)
	for j := range n {
		fmt.Fprintf(&b, "\tadd.u32 %%s%d, %%r5, %d;\n", j, j)
	}
	vec := func(p string) string {
		regs := make([]string, n)
		for j := range regs {
			regs[j] = fmt.Sprintf("%%%s%d", p, j)
		}
		return "{" + strings.Join(regs, ", ") + "}"
	}
	quals := strings.TrimPrefix(strings.Fields(f.Qualifiers(false))[0], ".")
	lquals := strings.TrimPrefix(strings.Fields(f.Qualifiers(true))[0], ".")
	if f.Shape == tmem.Shape16x32bx2 {
		fmt.Fprintf(&b, "\ttcgen05.st.sync.aligned.%s.b32 [%%r3], %d, %s;\n", quals, f.SplitOffset, vec("s"))
	} else {
		fmt.Fprintf(&b, "\ttcgen05.st.sync.aligned.%s.b32 [%%r3], %s;\n", quals, vec("s"))
	}
	b.WriteString("\ttcgen05.wait::st.sync.aligned;\n")
	if f.Shape == tmem.Shape16x32bx2 {
		fmt.Fprintf(&b, "\ttcgen05.ld.sync.aligned.%s.b32 %s, [%%r3], %d;\n", lquals, vec("d"), f.SplitOffset)
	} else {
		fmt.Fprintf(&b, "\ttcgen05.ld.sync.aligned.%s.b32 %s, [%%r3];\n", lquals, vec("d"))
	}
	fmt.Fprintf(&b, `	tcgen05.wait::ld.sync.aligned;
	ld.param.u64 %%rd0, [out];
	mul.wide.u32 %%rd1, %%r0, %d;
	add.u64 %%rd2, %%rd0, %%rd1;
`, 4*n)
	for j := range n {
		fmt.Fprintf(&b, "\tst.global.u32 [%%rd2+%d], %%d%d;\n", 4*j, j)
	}
	b.WriteString(`	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	@%p0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 512;
	ret;
}
`)
	return b.String()
}

// TestTcgen05AllForms runs tcgen05.st then tcgen05.ld of every Table 50
// shape, .num and 16-bit packing through the decoder and interpreter: every
// thread of the warpgroup gets its registers back, and the store wrote
// exactly one cell per register (two when packed).
func TestTcgen05AllForms(t *testing.T) {
	for _, s := range tmem.Shapes {
		for num := 1; num <= 128; num *= 2 {
			for _, packed := range []bool{false, true} {
				f := tmem.Form{Shape: s, Num: num, Packed: packed}
				if s == tmem.Shape16x32bx2 {
					f.SplitOffset = num
					if packed {
						f.SplitOffset = 2 * num
					}
				}
				if f.Validate() != nil {
					continue
				}
				t.Run(f.String(), func(t *testing.T) {
					res := tcRunCapture(t, formKernel(f))
					out := tcWords(res.Buffers[0].Data)
					n := f.Regs()
					for th := range 128 {
						for j := range n {
							if got, want := out[th*n+j], uint32(th*1000+j); got != want {
								t.Fatalf("thread %d register %d = %d, want %d", th, j, got, want)
							}
						}
					}
					snap := res.TMEM
					if snap == nil {
						t.Fatal("no Tensor Memory captured")
					}
					written := 0
					for lane := range tmem.Lanes {
						for col := range tmem.Columns {
							if snap.Mem.Written(lane, col) {
								written++
							}
						}
					}
					per := 1
					if packed {
						per = 2
					}
					if want := 128 * n * per; written != want {
						t.Fatalf("%d cells written, want %d", written, want)
					}
					checkCells(t, f, snap.Mem)
				})
			}
		}
	}
}

// tcRunCapture runs a one-warpgroup kernel with a 64 KiB output buffer,
// capturing CTA 0's Tensor Memory, and fails on a report.
func tcRunCapture(t *testing.T, src string) *Result {
	t.Helper()
	l := Launch{Kernel: compile(t, src), Config: Config{Block: [3]int{128, 1, 1}},
		Args: []Arg{{IsBuffer: true, Buffer: make([]byte, 128*128*4)}}, TMEMOf: &[3]int{}}
	res, err := l.Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != nil {
		t.Fatalf("report: %v", res.Report)
	}
	return res
}

// digestCell is the DIGEST §8 table, written out again for this test:
// register j of thread t of a warp goes to (lane, column) relative to the
// warp's base, before 16-bit packing doubles the column.
func digestCell(f tmem.Form, t, j int) (lane, col int) {
	switch f.Shape {
	case tmem.Shape32x32b:
		return t, j
	case tmem.Shape16x64b:
		return t/4 + 8*(t%2), 2*j + (t/2)%2
	case tmem.Shape16x128b:
		return t/4 + 8*(j%2), 4*(j/2) + t%4
	case tmem.Shape16x256b:
		return t/4 + 8*((j%4)/2), 8*(j/4) + 2*(t%4) + j%2
	}
	return t % 16, j // 16x32bx2; the split offset is added by the caller
}

// checkCells compares the Tensor Memory left by formKernel's store with
// digestCell: thread tid's register j (value tid*1000+j) in warp q's quarter.
func checkCells(t *testing.T, f tmem.Form, m *tmem.Memory) {
	t.Helper()
	for tid := range 128 {
		q, l := tid/32, tid%32
		for j := range f.Regs() {
			lane, col := digestCell(f, l, j)
			v := uint32(tid*1000 + j)
			if f.Packed {
				col *= 2
			}
			if f.Shape == tmem.Shape16x32bx2 && l >= 16 {
				col += f.SplitOffset
			}
			lane += 32 * q
			if !f.Packed {
				if got := m.Cell(lane, col); got != v {
					t.Fatalf("thread %d register %d: cell (%d,%d) = %d, want %d", tid, j, lane, col, got, v)
				}
				continue
			}
			if lo, hi := m.Cell(lane, col)&0xffff, m.Cell(lane, col+1)&0xffff; lo != v&0xffff || hi != v>>16 {
				t.Fatalf("thread %d register %d: cells (%d,%d..%d) hold %#x,%#x, want %#x", tid, j, lane, col, col+1, lo, hi, v)
			}
		}
	}
}
