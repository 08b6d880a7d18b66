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
}

// TestCorpusForms checks the corpusForms against the checker and, where
// it is installed, ptxas 12.5.
func TestCorpusForms(t *testing.T) { runCompilerForms(t, corpusForms) }
