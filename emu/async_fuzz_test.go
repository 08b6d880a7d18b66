package emu

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// asyncFuzzMenu is the instruction set FuzzAsyncKernel composes kernels
// from: every asynchronous instruction the emulator implements, with
// correct and incorrect operands, plus plain accesses to the memory they
// use. Registers: %r3/%r4 own mbarriers, %r5 the mailbox, %r7 this
// thread's slot, %r8/%r9 the peer's slot and mbarrier, %rd1 the output.
var asyncFuzzMenu = []string{
	"mbarrier.init.shared::cta.b64 [%r3], 1;",
	"@%p1 mbarrier.init.shared::cta.b64 [%r3], 2;",
	"mbarrier.arrive.shared::cta.b64 %rd5, [%r3];",
	"@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 4;",
	"st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r8], %r10, [%r9];",
	"mbarrier.test_wait.shared::cta.b64 %p2, [%r3], %rd5;",
	"mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], %r11;",
	"ld.shared.u32 %r12, [%r7];",
	"st.shared.u32 [%r7], %r12;",
	"cp.async.ca.shared.global [%r7], [%rd1], 4;",
	"cp.async.commit_group;",
	"cp.async.wait_group 0;",
	"cp.async.mbarrier.arrive.shared.b64 [%r3];",
	"mbarrier.inval.shared::cta.b64 [%r3];",
	"barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;",
	"mbarrier.expect_tx.relaxed.cta.shared::cluster.b64 [%r9], 4;",
	"mbarrier.complete_tx.relaxed.cta.shared::cluster.b64 [%r9], 4;",
	"red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r8], %r10, [%r9];",
	"@%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r5], 16;",
	"cp.async.bulk.commit_group;",
	"cp.async.bulk.wait_group.read 0;",
	"mbarrier.pending_count.b64 %r12, %rd5;",
	"mbarrier.arrive_drop.shared::cta.b64 _, [%r3];",
	"@%p1 mbarrier.arrive.noComplete.shared::cta.b64 %rd5, [%r3], 1;",
	"add.u32 %r11, %r11, 1;",
	"@!%p2 bra.uni TOP;",
	"mbarrier.arrive.shared::cluster.b64 _, [%r9];",
	"cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r8], [%r5], 16, [%r9];",
	"st.global.u32 [%rd1], %r12;",
	"mbarrier.init.shared::cta.b64 [%r4], 1;",
	"mbarrier.try_wait.shared::cta.b64 %p2, [%r4], %rd5, 100;",
	"st.shared.u64 [%r3], %rd5;",
}

// asyncFuzzKernel builds the kernel whose body is the menu entries that
// prog's bytes select.
func asyncFuzzKernel(prog []byte) string {
	var b strings.Builder
	b.WriteString(`.version 8.1
.target sm_90
.address_size 64
.visible .entry fuzz(.param .u64 out)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	.reg .pred %p<3>;
	.shared .align 8 .b64 bars[2];
	.shared .align 16 .b32 box[64];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, bars;
	add.u32 %r4, %r3, 8;
	mov.u32 %r5, box;
	shl.b32 %r6, %r1, 2;
	add.u32 %r7, %r5, %r6;
	xor.b32 %r13, %r2, 1;
	mapa.shared::cluster.u32 %r8, %r7, %r13;
	mapa.shared::cluster.u32 %r9, %r3, %r13;
	mov.u32 %r10, %r1;
	setp.eq.u32 %p1, %r1, 0;
TOP:
`)
	for i, c := range prog {
		if i >= 32 {
			break
		}
		fmt.Fprintf(&b, "\t%s\n", asyncFuzzMenu[int(c)%len(asyncFuzzMenu)])
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// FuzzAsyncKernel runs kernels composed of asynchronous instructions in
// random order: the emulator must neither panic nor hang (the step budget
// bounds loops), and the same input must give the same report and memory.
func FuzzAsyncKernel(f *testing.F) {
	f.Add([]byte{0, 3, 14, 4, 24, 6, 25, 7})
	f.Add([]byte{1, 9, 10, 11, 7, 8})
	f.Add([]byte{0, 12, 9, 6, 13, 0})
	f.Add([]byte{0, 14, 15, 16, 17, 2, 5, 21, 23})
	f.Add([]byte{18, 19, 20, 8, 22, 26, 27, 30})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		src := asyncFuzzKernel(data[1:])
		p := compile(t, src)
		cfg := Config{Grid: dims(2, 1, 1), Block: dims(32, 1, 1), Cluster: dims(2, 1, 1),
			Async: AsyncPolicy(data[0] % 3), Seed: uint64(data[0] / 3), MaxSteps: 20000}
		run := func() (string, []byte) {
			res, err := execute(p, cfg, []Arg{buf(64)})
			if err != nil {
				t.Fatal(err)
			}
			rep := ""
			if res.Report != nil {
				rep = res.Report.Error()
			}
			return rep, res.Buffers[0].Data
		}
		r1, m1 := run()
		r2, m2 := run()
		if r1 != r2 || !bytes.Equal(m1, m2) {
			t.Fatalf("nondeterministic:\n%s\n---\n%s", r1, r2)
		}
	})
}
