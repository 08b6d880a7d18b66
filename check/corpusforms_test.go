package check

import "testing"

// corpusForms are instruction lines of public PTX (compiler output,
// library inline assembly) on which the checker and ptxas 12.5 disagreed,
// with the neighbouring forms around each: ok is ptxas 12.5's verdict.
// scripts/corpus-sweep.sh finds them; docs/corpus.md says how.
var corpusForms = []compilerForm{
	// Scopes on atom and red came with PTX ISA 5.0 for sm_60, .gpu with
	// .cta and .sys (libcu++ atomics at 5.0 write atom.and.gpu.b32).
	{"atom .gpu at 5.0 on sm_60", "5.0", "sm_60", "atom.and.gpu.b32 %r1, [%rd1], %r2;", true},
	{"atom .gpu with a space at 5.0 on sm_61", "5.0", "sm_61", "atom.global.gpu.add.u32 %u1, [%rd1], %u2;", true},
	{"atom .gpu .cas .b64 at 5.0", "5.0", "sm_60", "atom.gpu.cas.b64 %rd1, [%rd2], %rd3, %rd4;", true},
	{"atom .gpu .add .f64 at 5.0", "5.0", "sm_60", "atom.gpu.add.f64 %fd1, [%rd1], %fd2;", true},
	{"red .gpu at 5.0 on sm_60", "5.0", "sm_60", "red.gpu.global.add.u32 [%rd1], %u2;", true},
	{"atom .gpu on sm_52", "5.0", "sm_52", "atom.gpu.add.u32 %u1, [%rd1], %u2;", false},
	{"red .sys on sm_52", "5.0", "sm_52", "red.sys.global.add.u32 [%rd1], %u2;", false},
	{"atom .cta at 5.0 on sm_60", "5.0", "sm_60", "atom.cta.exch.b32 %r1, [%rd1], %r2;", true},
	{"atom .relaxed.gpu at 5.0", "5.0", "sm_61", "atom.relaxed.gpu.add.u32 %u1, [%rd1], %u2;", false},
	// mbarrier .release/.acquire with .cta scope (PTX ISA 8.0) need only
	// what mbarrier needs, sm_80 (libcu++ cuda::ptx at 8.3 for sm_89);
	// .cluster scope needs sm_90.
	{"mbarrier.arrive.release.cta on sm_80", "8.0", "sm_80", "mbarrier.arrive.release.cta.shared::cta.b64 %rd1, [bar];", true},
	{"mbarrier.arrive.release.cta, .shared, on sm_89", "8.3", "sm_89", "mbarrier.arrive.release.cta.shared.b64 %rd1, [bar];", true},
	{"mbarrier.arrive_drop.release.cta on sm_80", "8.0", "sm_80", "mbarrier.arrive_drop.release.cta.shared::cta.b64 %rd1, [bar];", true},
	{"mbarrier.test_wait.acquire.cta on sm_89", "8.3", "sm_89", "mbarrier.test_wait.acquire.cta.shared::cta.b64 %p1, [bar], %rd1;", true},
	{"mbarrier.test_wait.parity.acquire.cta on sm_80", "8.5", "sm_80", "mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 %p1, [bar], %r1;", true},
	{"mbarrier.arrive.release.cluster on sm_89", "8.3", "sm_89", "mbarrier.arrive.release.cluster.shared::cta.b64 %rd1, [bar];", false},
	{"mbarrier.test_wait.acquire.cluster on sm_80", "8.0", "sm_80", "mbarrier.test_wait.acquire.cluster.shared::cta.b64 %p1, [bar], %rd1;", false},
	{"mbarrier.arrive.release.cta at 7.8", "7.8", "sm_80", "mbarrier.arrive.release.cta.shared::cta.b64 %rd1, [bar];", false},
	{"mbarrier.arrive.release.cta on sm_75", "8.0", "sm_75", "mbarrier.arrive.release.cta.shared::cta.b64 %rd1, [bar];", false},
	{"mbarrier.try_wait.acquire.cta on sm_80", "8.0", "sm_80", "mbarrier.try_wait.acquire.cta.shared::cta.b64 %p1, [bar], %rd1;", false},
	{"mbarrier.arrive.release.cta with a count on sm_80", "8.0", "sm_80", "mbarrier.arrive.release.cta.shared::cta.b64 %rd1, [bar], %r1;", false},
	// The state an mbarrier arrive returns is an integer register: not .f64.
	{"mbarrier.arrive state in an .f64 register", "7.8", "sm_80", "mbarrier.arrive.b64 %fd1, [%rd1];", false},
	{"mbarrier.arrive_drop state in an .f64 register", "7.8", "sm_80", "mbarrier.arrive_drop.b64 %fd1, [%rd1];", false},
	{"mbarrier.arrive state in a .u64 register", "7.8", "sm_80", "mbarrier.arrive.b64 %ud1, [%rd1];", true},
	{"mbarrier.arrive state in a .b64 register", "7.8", "sm_80", "mbarrier.arrive.shared.b64 %rd1, [bar];", true},
	// Version and target gates found by sweeping one accepted instance of
	// every form over older versions and targets.
	{".cc .u64 at 4.2", "4.2", "sm_20", "add.cc.u64 %rd1, %rd2, %rd3;", false},
	{".cc .u64 at 4.3", "4.3", "sm_20", "add.cc.u64 %rd1, %rd2, %rd3;", true},
	{"addc.cc .s64 on sm_13", "4.3", "sm_13", "addc.cc.s64 %rd1, %rd2, %rd3;", false},
	{"addc .u64 without .cc at 4.2", "4.2", "sm_20", "addc.u64 %rd1, %rd2, %rd3;", true},
	{"addc .u64 without .cc on sm_13", "4.3", "sm_13", "addc.u64 %rd1, %rd2, %rd3;", true},
	{"sub.cc .s32 at 1.2", "1.2", "sm_10", "sub.cc.s32 %s1, %s2, %s3;", false},
	{"sub.cc .s32 at 1.3", "1.3", "sm_10", "sub.cc.s32 %s1, %s2, %s3;", true},
	{"subc .s32 at 1.2", "1.2", "sm_10", "subc.s32 %s1, %s2, %s3;", false},
	{"addc .s32 at 1.2", "1.2", "sm_10", "addc.s32 %s1, %s2, %s3;", true},
	{"subc.cc .u64 at 4.2", "4.2", "sm_20", "subc.cc.u64 %rd1, %rd2, %rd3;", false},
	{"subc .u64 without .cc at 4.2", "4.2", "sm_20", "subc.u64 %rd1, %rd2, %rd3;", true},
	{"mad.lo.cc .u64 at 4.2", "4.2", "sm_20", "mad.lo.cc.u64 %rd1, %rd2, %rd3, %rd4;", false},
	{"mad.hi.cc .u32 at 3.0", "3.0", "sm_20", "mad.hi.cc.u32 %u1, %u2, %u3, %u1;", true},
	{"madc.hi .u64 without .cc at 3.0", "3.0", "sm_20", "madc.hi.u64 %rd1, %rd2, %rd3, %rd4;", true},
	{"madc.hi.cc .u64 at 4.2", "4.2", "sm_20", "madc.hi.cc.u64 %rd1, %rd2, %rd3, %rd4;", false},
	{"rsqrt.approx.ftz.f64 at 3.2", "3.2", "sm_20", "rsqrt.approx.ftz.f64 %fd1, %fd2;", false},
	{"rsqrt.approx.ftz.f64 at 4.0", "4.0", "sm_20", "rsqrt.approx.ftz.f64 %fd1, %fd2;", true},
	{"rsqrt.approx.ftz.f64 on sm_13", "4.0", "sm_13", "rsqrt.approx.ftz.f64 %fd1, %fd2;", false},
	{"rsqrt.approx.f64 on sm_13", "1.4", "sm_13", "rsqrt.approx.f64 %fd1, %fd2;", true},
	{"rsqrt.approx.ftz.f32 on sm_10", "1.4", "sm_10", "rsqrt.approx.ftz.f32 %f1, %f2;", true},
	{"pmevent.mask at 2.3", "2.3", "sm_20", "pmevent.mask 3;", false},
	{"pmevent.mask at 3.0", "3.0", "sm_20", "pmevent.mask 3;", true},
	{"pmevent.mask on sm_13", "3.0", "sm_13", "pmevent.mask 3;", false},
	{"pmevent on sm_13", "1.4", "sm_13", "pmevent 3;", true},
	{"cvta.const at 3.0", "3.0", "sm_20", "cvta.const.u64 %rd1, %rd2;", false},
	{"cvta.const at 3.1", "3.1", "sm_20", "cvta.const.u64 %rd1, %rd2;", true},
	{"cvta.to.const at 3.0", "3.0", "sm_20", "cvta.to.const.u64 %rd1, %rd2;", false},
	{"isspacep.const at 3.0", "3.0", "sm_20", "isspacep.const %p1, %rd2;", false},
	{"cvta.global at 3.0", "3.0", "sm_20", "cvta.global.u64 %rd1, %rd2;", true},
	{"bar.sync.any at 5.0", "5.0", "sm_61", "bar.sync.any 1, 64;", false},
	{"bar.sync.all on sm_30 at 6.0", "6.0", "sm_30", "bar.sync.all 1;", true},
	{"bar.arrive.any on sm_20", "6.0", "sm_20", "bar.arrive.any 1, 64;", false},
	{"bar.red.popc.any at 5.0", "5.0", "sm_61", "bar.red.popc.any.u32 %u1, 1, %p1;", false},
	{"bar.red.and.any at 6.0", "6.0", "sm_30", "bar.red.and.any.pred %p2, 1, %p1;", true},
	{"bar.sync at 1.4", "1.4", "sm_10", "bar.sync 1;", true},
	{".callprototype at 2.0", "2.0", "sm_20", "P: .callprototype _ (.param .b32 _);", false},
	{".callprototype at 2.1", "2.1", "sm_20", "P: .callprototype _ (.param .b32 _);", true},
	{".branchtargets at 5.0", "5.0", "sm_30", "L: .branchtargets L;", false},
	{".branchtargets on sm_20", "6.0", "sm_20", "L: .branchtargets L;", false},
	{".branchtargets at 6.0", "6.0", "sm_30", "L: .branchtargets L;", true},
	// 64-bit bitwise and min/max atomics need PTX ISA 3.1 and sm_32; the
	// 64-bit add, exch and cas do not.
	{"atom.global.and.b64 on sm_30", "3.1", "sm_30", "atom.global.and.b64 %rd1, [%rd2], 3;", false},
	{"atom.and.b64 at 2.3", "2.3", "sm_20", "atom.and.b64 %rd1, [%rd2], 3;", false},
	{"atom.shared.or.b64 on sm_35", "3.1", "sm_35", "atom.shared.or.b64 %rd1, [%rd2], %rd3;", true},
	{"atom.max.s64 on sm_30", "3.1", "sm_30", "atom.max.s64 %rd1, [%rd2], %rd3;", false},
	{"atom.global.min.u64 on sm_35", "3.1", "sm_35", "atom.global.min.u64 %rd1, [%rd2], %rd3;", true},
	{"red.global.xor.b64 on sm_30", "3.1", "sm_30", "red.global.xor.b64 [%rd2], %rd3;", false},
	{"red.max.u64 at 2.3", "2.3", "sm_20", "red.max.u64 [%rd2], %rd3;", false},
	{"atom.global.add.u64 at 2.3", "2.3", "sm_20", "atom.global.add.u64 %rd1, [%rd2], %rd3;", true},
	{"atom.global.exch.b64 at 2.3", "2.3", "sm_20", "atom.global.exch.b64 %rd1, [%rd2], %rd3;", true},
	{"atom.global.cas.b64 on sm_30", "3.1", "sm_30", "atom.global.cas.b64 %rd1, [%rd2], %rd3, %rd4;", true},
	{"atom.global.max.s32 at 2.3", "2.3", "sm_20", "atom.global.max.s32 %s1, [%rd2], %s3;", true},
	{"red.global.and.b32 at 2.3", "2.3", "sm_20", "red.global.and.b32 [%rd2], %r3;", true},
	// A texture or surface handle in a register (indirect access), and
	// tex.level and tex.grad, came with PTX ISA 3.1.
	{"tex with a register handle at 3.0", "3.0", "sm_30", "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%s1}];", false},
	{"tex with a register handle at 3.1", "3.1", "sm_30", "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%s1}];", true},
	{"tld4 with a register handle at 3.0", "3.0", "sm_30", "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];", false},
	{"txq with a register handle at 3.0", "3.0", "sm_30", "txq.width.b32 %r1, [%rd1];", false},
	{"suq with a register handle at 3.0", "3.0", "sm_30", "suq.width.b32 %r1, [%rd1];", false},
	{"suld with a register handle at 3.0", "3.0", "sm_30", "suld.b.1d.b32.trap {%r1}, [%rd1, {%s2}];", false},
	{"sust with a register handle at 3.1", "3.1", "sm_30", "sust.b.1d.b32.trap [%rd1, {%s1}], {%r2};", true},
	{"sured with a register handle at 3.0", "3.0", "sm_30", "sured.b.add.1d.trap.u32 [%rd1, {%s1}], %u2;", false},
	{"tex.level at 3.0", "3.0", "sm_30", "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f7;", false},
	{"tex.grad at 3.1", "3.1", "sm_30", "tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], {%f7, %f8}, {%f8, %f7};", true},
	// wmma .aligned came with PTX ISA 6.3.
	{"wmma.load .aligned at 6.0", "6.0", "sm_70", "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];", false},
	{"wmma.load without .aligned at 6.0", "6.0", "sm_70", "wmma.load.a.sync.row.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];", true},
	{"wmma.load .aligned at 6.3", "6.3", "sm_70", "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];", true},
}

// TestCorpusForms checks the corpusForms against the checker and, where
// it is installed, ptxas 12.5.
func TestCorpusForms(t *testing.T) { runCompilerForms(t, corpusForms) }

// TestAddressSizeVersion checks that .address_size needs PTX ISA 2.3.
func TestAddressSizeVersion(t *testing.T) {
	ptxas := ptxasPath("12.5")
	dir := t.TempDir()
	for _, c := range []struct {
		version string
		ok      bool
	}{{"2.2", false}, {"2.3", true}} {
		src := ".version " + c.version + "\n.target sm_20\n.address_size 64\n.entry k\n{\nexit;\n}\n"
		ours, diags := checkCommandErrorLines(src)
		if ours[3] == c.ok || len(ours) > 1 {
			t.Errorf(".address_size at %s: checker errors on lines %v, want ok=%v: %v", c.version, ours, c.ok, diags)
		}
		if ptxas != "" {
			if lines := ptxasErrorLines(t, ptxas, dir, "sm_52", src); lines[3] == c.ok {
				t.Errorf(".address_size at %s: ptxas 12.5 errors on lines %v, the table says ok=%v", c.version, lines, c.ok)
			}
		}
	}
}

// TestTexDeclarations checks the .tex state space (PTX ISA 1.0-1.4, .u32
// or .u64 only) and the opaque texture types (from PTX ISA 1.5), each
// verdict ptxas 12.5's.
func TestTexDeclarations(t *testing.T) {
	ptxas := ptxasPath("12.5")
	dir := t.TempDir()
	for _, c := range []struct {
		version, decl string
		ok            bool
	}{
		{"1.4", ".tex .u64 tex;", true},
		{"1.4", ".tex .u32 tex;", true},
		{"1.5", ".tex .u64 tex;", false},
		{"2.2", ".tex .u64 tex;", false},
		{"1.4", ".tex .f32 tex;", false},
		{"1.5", ".global .texref tex;", true},
		{"1.4", ".global .texref tex;", false},
		{"1.4", ".global .surfref surf;", false},
		{"2.0", ".global .surfref surf;", true},
	} {
		src := ".version " + c.version + "\n.target sm_13\n" + c.decl + "\n.entry k\n{\nexit;\n}\n"
		ours, diags := checkCommandErrorLines(src)
		if ours[3] == c.ok || len(ours) > 1 {
			t.Errorf("%q at %s: checker errors on lines %v, want ok=%v: %v", c.decl, c.version, ours, c.ok, diags)
		}
		if ptxas != "" {
			if lines := ptxasErrorLines(t, ptxas, dir, "sm_52", src); lines[3] == c.ok {
				t.Errorf("%q at %s: ptxas 12.5 errors on lines %v, the table says ok=%v", c.decl, c.version, lines, c.ok)
			}
		}
	}
}
