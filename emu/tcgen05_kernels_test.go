package emu

import (
	"strconv"
	"strings"
)

// The single-tile tcgen05 test kernels (tcMMAKernel, tcNarrowKernel and
// the forms built from them) share their structure: this file holds the
// pieces once. Every piece is a fmt template (registers spelled %%), as
// the kernels are.

// tcTileHead is the module header and the entry's declarations: params,
// smem bytes of 1024-aligned shared memory, one mbarrier, the allocation
// slot and regs 32-bit registers.
func tcTileHead(version, params string, smem, regs int) string {
	return ".version " + version + `
.target sm_100a
.address_size 64
.visible .entry k(` + params + `)
{
	.shared .align 1024 .b8 smem[` + strconv.Itoa(smem) + `];
	.shared .align 8 .b64 bar[1];
	.shared .align 4 .b32 slot[1];
	.reg .pred %%p<8>;
	.reg .b32 %%r<` + strconv.Itoa(regs) + `>;
	.reg .b64 %%rd<32>;
`
}

// tcTileSetup: the 128 threads copy words 32-bit words of the image at
// %rd1 into shared memory, warp 0 allocates cols columns of Tensor Memory
// (%r9) at slot (%r8), thread 0 initialises the mbarrier (%r10); after the
// fences and a barrier every thread has the allocation's address in %r11.
// %r1 is the thread, %r7 its warp, %p2 "warp 0", %p3 "thread 0".
func tcTileSetup(words, cols int) string {
	return `	mov.u32 %%r1, %%tid.x;
	mov.u32 %%r2, %%r1;
COPY:
	mul.wide.u32 %%rd3, %%r2, 4;
	add.u64 %%rd4, %%rd1, %%rd3;
	ld.global.u32 %%r3, [%%rd4];
	shl.b32 %%r4, %%r2, 2;
	mov.u32 %%r5, smem;
	add.u32 %%r6, %%r5, %%r4;
	st.shared.u32 [%%r6], %%r3;
	add.u32 %%r2, %%r2, 128;
	setp.lt.u32 %%p1, %%r2, ` + strconv.Itoa(words) + `;
	@%%p1 bra COPY;
	shr.u32 %%r7, %%r1, 5;
	setp.eq.u32 %%p2, %%r7, 0;
	setp.eq.u32 %%p3, %%r1, 0;
	mov.u32 %%r8, slot;
	mov.u32 %%r9, ` + strconv.Itoa(cols) + `;
	@%%p2 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%%r8], %%r9;
	mov.u32 %%r10, bar;
	@%%p3 mbarrier.init.shared::cta.b64 [%%r10], 1;
	fence.proxy.async.shared::cta;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	ld.shared.b32 %%r11, [%%r8];
`
}

// tcTileDescs: thread 0 (the others branch to WAIT) builds the A
// descriptor of shared memory's start (%rd8) and the B descriptor of the
// address bAddr leaves in %r13 (%rd12), both or'ed with the param hi, and
// loads the instruction descriptor into %r14.
func tcTileDescs(bAddr string) string {
	return `	@!%%p3 bra WAIT;
	mov.u32 %%r5, smem;
	cvt.u64.u32 %%rd5, %%r5;
	and.b64 %%rd5, %%rd5, 262143;
	shr.u64 %%rd6, %%rd5, 4;
	ld.param.u64 %%rd7, [hi];
	or.b64 %%rd8, %%rd7, %%rd6;
` + bAddr + `	cvt.u64.u32 %%rd9, %%r13;
	and.b64 %%rd9, %%rd9, 262143;
	shr.u64 %%rd10, %%rd9, 4;
	or.b64 %%rd12, %%rd7, %%rd10;
	ld.param.u32 %%r14, [idesc];
`
}

// tcTileCommitWait: the issuing thread commits its MMAs to the mbarrier,
// every thread waits for phase 0 and fences.
const tcTileCommitWait = `	tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%%r10];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %%p6, [%%r10], 0;
	@!%%p6 bra WAIT;
	tcgen05.fence::after_thread_sync;
`

// tcTileEnd: a last barrier, warp 0 frees the columns.
const tcTileEnd = `	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	@%%p2 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %%r11, %%r9;
	ret;
}
`

// tcMMAKernel is a Blackwell GEMM tile the way CUTLASS and Triton write it
// for sm_100a: 128 threads copy a prepared shared-memory image (A at 0, B
// at boff) from global memory; warp 0 allocates 64 columns of Tensor
// Memory; thread 0 initialises an mbarrier, builds the A and B descriptors
// (address masked to 18 bits and shifted by 4, or'ed with LBO, SBO, the
// fixed 0b001 of bits 46-48 and the swizzle mode in hi), issues two
// tcgen05.mma of K each (the second with the descriptors advanced by kadv
// 16-byte units and enable-input-d set) and commits them to the mbarrier;
// every thread waits on it, each warp loads its 32 lanes of D (64 columns,
// 8 at a time) and stores them as a 128×64 row-major matrix of 32-bit
// words; warp 0 frees the columns. The %s is the .kind.
var tcMMAKernel = tcTileHead("8.6", ".param .u64 img, .param .u64 out, .param .u64 hi, .param .u64 kadv, .param .u32 idesc, .param .u32 boff", 32768, 64) +
	"\tld.param.u64 %%rd1, [img];\n\tld.param.u64 %%rd2, [out];\n" +
	tcTileSetup(8192, 64) +
	tcTileDescs("\tld.param.u32 %%r12, [boff];\n\tadd.u32 %%r13, %%r5, %%r12;\n") +
	`	setp.ne.u32 %%p4, %%r1, 0;
	tcgen05.mma.cta_group::1.%s [%%r11], %%rd8, %%rd12, %%r14, %%p4;
	ld.param.u64 %%rd13, [kadv];
	add.u64 %%rd14, %%rd8, %%rd13;
	add.u64 %%rd15, %%rd12, %%rd13;
	setp.eq.u32 %%p5, %%r1, 0;
	tcgen05.mma.cta_group::1.%s [%%r11], %%rd14, %%rd15, %%r14, %%p5;
` + tcTileCommitWait + `	// warp w reads lanes 32w..32w+31: row 32w + lane
	shl.b32 %%r15, %%r7, 21;
	add.u32 %%r16, %%r11, %%r15;
	mul.lo.u32 %%r17, %%r1, 256;
	cvt.u64.u32 %%rd16, %%r17;
	add.u64 %%rd17, %%rd2, %%rd16;
	mov.u32 %%r18, 0;
LD:
	add.u32 %%r19, %%r16, %%r18;
	tcgen05.ld.sync.aligned.32x32b.x8.b32 {%%r20, %%r21, %%r22, %%r23, %%r24, %%r25, %%r26, %%r27}, [%%r19];
	tcgen05.wait::ld.sync.aligned;
	mul.wide.u32 %%rd18, %%r18, 4;
	add.u64 %%rd19, %%rd17, %%rd18;
	st.global.v4.b32 [%%rd19], {%%r20, %%r21, %%r22, %%r23};
	st.global.v4.b32 [%%rd19+16], {%%r24, %%r25, %%r26, %%r27};
	add.u32 %%r18, %%r18, 8;
	setp.lt.u32 %%p7, %%r18, 64;
	@%%p7 bra LD;
` + tcTileEnd

// tcNarrowKernel runs one narrow-kind tcgen05.mma on a 128×64 tile: 128
// threads copy a shared-memory image (A at 0, B at 4096, K-major without
// swizzle) from global memory; warp 0 allocates 128 columns; every thread
// stores its row of C (64 words) to its lane of columns 0-63 and 16 words
// of scale factors to columns 64-79 with tcgen05.st; thread 0 issues the
// MMA (enable-input-d true) and commits it; after the wait each thread
// loads its lane of D and stores it. %s is the qualifiers after
// .cta_group::1, %s the scale operands ("" or ", [sfa], [sfb]").
var tcNarrowKernel = tcTileHead("8.7", ".param .u64 img, .param .u64 cin, .param .u64 sf, .param .u64 out, .param .u64 hi, .param .u32 idesc", 8192, 200) +
	"\tld.param.u64 %%rd1, [img];\n" +
	tcTileSetup(2048, 128) +
	`	shl.b32 %%r15, %%r7, 21;
	add.u32 %%r16, %%r11, %%r15;
	ld.param.u64 %%rd20, [cin];
	mul.wide.u32 %%rd21, %%r1, 256;
	add.u64 %%rd22, %%rd20, %%rd21;
%s	tcgen05.st.sync.aligned.32x32b.x64.b32 [%%r16], {%s};
	ld.param.u64 %%rd23, [sf];
	mul.wide.u32 %%rd24, %%r1, 64;
	add.u64 %%rd25, %%rd23, %%rd24;
%s	add.u32 %%r17, %%r16, 64;
	tcgen05.st.sync.aligned.32x32b.x16.b32 [%%r17], {%s};
	tcgen05.wait::st.sync.aligned;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
` + tcTileDescs("\tadd.u32 %%r13, %%r5, 4096;\n") +
	`	add.u32 %%r30, %%r11, 64;
	add.u32 %%r31, %%r11, 72;
	setp.eq.u32 %%p4, %%r1, 0;
	tcgen05.mma.cta_group::1.%s [%%r11], %%rd8, %%rd12, %%r14%s, %%p4;
` + tcTileCommitWait + `	ld.param.u64 %%rd2, [out];
	mul.lo.u32 %%r18, %%r1, 256;
	cvt.u64.u32 %%rd16, %%r18;
	add.u64 %%rd17, %%rd2, %%rd16;
	tcgen05.ld.sync.aligned.32x32b.x64.b32 {%s}, [%%r16];
	tcgen05.wait::ld.sync.aligned;
%s` + tcTileEnd

// tcPairBuffer is a global buffer of a kernel that tcToPair gives each CTA
// of the pair its own part of: the line that loads its param and the
// bytes per CTA.
type tcPairBuffer struct {
	load   string
	stride int
}

// tcToPair turns src, a single-CTA tile kernel built from the pieces above
// (with its % signs already substituted), into its .cta_group::2 form: a
// cluster of two CTAs, each with its own part of bufs (the rank in
// register rank), allocating and freeing with .cta_group::2 between
// cluster barriers; thread 0 of rank 0 alone issues the MMAs, now
// .cta_group::2, and commits them with .multicast::cluster to both CTAs'
// mbarriers (mask 0b11).
func tcToPair(src, rank string, bufs []tcPairBuffer) string {
	cluster := "\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n"
	reps := [][2]string{
		{".reg .pred %p<8>;", ".reg .pred %p<8>;\n\t.reg .b16 %rs<2>;"},
		{"tcgen05.alloc.cta_group::1", "tcgen05.alloc.cta_group::2"},
		{"tcgen05.dealloc.cta_group::1", "tcgen05.dealloc.cta_group::2"},
		{"\tbar.sync 0;\n\ttcgen05.fence::after_thread_sync;\n\tld.shared.b32", cluster + "\ttcgen05.fence::after_thread_sync;\n\tld.shared.b32"},
		{"\t@!%p3 bra WAIT;", "\tsetp.eq.u32 %p0, " + rank + ", 0;\n\tand.pred %p0, %p0, %p3;\n\t@!%p0 bra WAIT;"},
		{"tcgen05.mma.cta_group::1.", "tcgen05.mma.cta_group::2."},
		{"\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r10];",
			"\tmov.u16 %rs1, 3;\n\ttcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r10], %rs1;"},
		{"\tbar.sync 0;\n\ttcgen05.fence::after_thread_sync;\n\t@%p2 tcgen05.dealloc", cluster + "\ttcgen05.fence::after_thread_sync;\n\t@%p2 tcgen05.dealloc"},
	}
	for i, b := range bufs {
		reg := "%rd" + strconv.Itoa(28+i)
		op := strings.Fields(b.load)
		line := b.load + "\n\tmul.wide.u32 " + reg + ", " + rank + ", " + strconv.Itoa(b.stride) + ";\n\tadd.u64 " + strings.TrimSuffix(op[1], ",") + ", " + strings.TrimSuffix(op[1], ",") + ", " + reg + ";"
		if i == 0 {
			line = "\tmov.u32 " + rank + ", %cluster_ctarank;\n" + line
		}
		reps = append(reps, [2]string{b.load, line})
	}
	for _, r := range reps {
		if !strings.Contains(src, r[0]) {
			panic("tcToPair: no " + r[0])
		}
		src = strings.ReplaceAll(src, r[0], r[1])
	}
	return src
}
