package isa

// This file holds the tables of the store instructions: st (PTX ISA
// §9.7.9.11), st.async (§9.7.9.12) and tcgen05.st (§9.7.16.8.4). Where
// the pages and NVIDIA ptxas 12.5 disagree for PTX ISA 8.5 and older, the
// rules follow ptxas; docs/ptxas-differences.md lists each case.

const (
	secSt      = "PTX ISA 9.7.9.11 (st)"
	secStAsync = "PTX ISA 9.7.9.12 (st.async)"
	secTcgen05 = "PTX ISA 9.7.16.8.4 (tcgen05.st)"
)

var (
	stSpaces = []Qual{QGlobal, QLocal, QShared, QSharedCta, QSharedCluster, QParam, QParamFunc, QParamEntry, QConst}
	stTypes  = []Qual{QB8, QB16, QB32, QB64, QB128, QU8, QU16, QU32, QU64, QS8, QS16, QS32, QS64, QF32, QF64}
	scopes   = []Qual{QCta, QCluster, QGpu, QSys}
	l1Evicts = []Qual{QL1EvictNormal, QL1EvictUnchanged, QL1EvictFirst, QL1EvictLast, QL1NoAllocate}
	l2Evicts = []Qual{QL2EvictNormal, QL2EvictFirst, QL2EvictLast}
)

func strong(f *Form) bool { return f.Sem == QRelaxed || f.Sem == QRelease }

// globalOrGeneric reports whether f addresses .global directly or
// generically.
func globalOrGeneric(f *Form) bool { return f.Space == QNone || f.Space == QGlobal }

func isParam(q Qual) bool { return q == QParam || q == QParamFunc || q == QParamEntry }

// wideVector reports the 256-bit vectors: .v8 of 32-bit and .v4 of 64-bit
// types (PTX 8.8, sm_100).
func wideVector(f *Form) bool {
	return (f.Vec == 8 && f.Type.Bits() == 32) || (f.Vec == 4 && f.Type.Bits() == 64)
}

func firstOf(f *Form, gs ...Group) Qual {
	for _, g := range gs {
		if q := f.Written(g); q != QNone {
			return q
		}
	}
	return QNone
}

func msg(s string) func(*Form) string { return func(*Form) string { return s } }

var stInstr = &Instr{
	Name:    "st",
	Opcode:  "st",
	Section: secSt,
	Summary: "Store data to an addressable state space variable.",
	Groups: []GroupSpec{
		{Group: GSem, Values: []Qual{QWeak, QVolatile, QRelaxed, QRelease}, Default: QWeak,
			Doc: "memory ordering; .weak, .volatile, .relaxed and .release are mutually exclusive"},
		{Group: GMmio, Values: []Qual{QMmio}, Doc: "mmio operation: only .relaxed.sys on .global"},
		{Group: GScope, Values: scopes, Doc: "the threads a .relaxed or .release store synchronizes with"},
		{Group: GSpace, Values: stSpaces, Doc: "destination state space; generic addressing when absent; .shared is .shared::cta, .param is .param::func"},
		{Group: GCop, Values: []Qual{QWb, QCg, QCs, QWt}, Doc: "cache operator"},
		{Group: GL1Evict, Values: l1Evicts, Doc: "L1 eviction priority"},
		{Group: GL2Evict, Values: l2Evicts, Doc: "L2 eviction priority (256-bit vectors only)"},
		{Group: GCacheHint, Values: []Qual{QL2CacheHint}, Doc: "take a 64-bit cache-policy operand"},
		{Group: GVec, Values: []Qual{QV2, QV4, QV8}, Doc: "vector length"},
		{Group: GType, Values: stTypes, Required: true, Doc: "type of the stored value"},
	},
	Features: []Feature{
		{Name: "st", PTX: V(1, 0)},
		{Name: "st.volatile", Qual: QVolatile, At: GSem, PTX: V(1, 1)},
		{Name: "generic addressing", When: func(f *Form) bool { return f.Space == QNone }, PTX: V(2, 0), Arch: SM(20)},
		{Name: "cache operators", When: func(f *Form) bool { return f.Cop != QNone }, At: GCop, PTX: V(2, 0), Arch: SM(20)},
		{Name: "st.f64", Qual: QF64, At: GType, Arch: SM(13)},
		{Name: ".weak", Qual: QWeak, At: GSem, PTX: V(6, 0), Arch: SM(70)},
		{Name: ".relaxed", Qual: QRelaxed, At: GSem, PTX: V(6, 0), Arch: SM(70)},
		{Name: ".release", Qual: QRelease, At: GSem, PTX: V(6, 0), Arch: SM(70)},
		{Name: "scope qualifier", When: func(f *Form) bool { return f.Scope != QNone && f.Scope != QCluster }, At: GScope, PTX: V(6, 0), Arch: SM(70)},
		{Name: ".cluster scope", Qual: QCluster, At: GScope, PTX: V(7, 8), Arch: SM(90)},
		{Name: ".level1::eviction_priority", When: func(f *Form) bool { return f.L1Evict != QNone }, At: GL1Evict, PTX: V(7, 4), Arch: SM(70)},
		{Name: ".level::cache_hint", Qual: QL2CacheHint, At: GCacheHint, PTX: V(7, 4), Arch: SM(80)},
		{Name: "::cta", Qual: QSharedCta, At: GSpace, PTX: V(7, 8), Arch: SM(30)},
		{Name: "::cluster", Qual: QSharedCluster, At: GSpace, PTX: V(7, 8), Arch: SM(90)},
		{Name: ".mmio", Qual: QMmio, At: GMmio, PTX: V(8, 2), Arch: SM(70)},
		{Name: "::func", Qual: QParamFunc, At: GSpace, PTX: V(8, 3)},
		{Name: ".b128", Qual: QB128, At: GType, PTX: V(8, 3), Arch: SM(70)},
		{Name: ".b128 with .sys", When: func(f *Form) bool { return f.Type == QB128 && f.Scope == QSys }, At: GScope, PTX: V(8, 4)},
		{Name: ".level2::eviction_priority", When: func(f *Form) bool { return f.L2Evict != QNone }, At: GL2Evict, PTX: V(8, 8), Arch: SM(100)},
		{Name: ".v8 with 32-bit types", When: func(f *Form) bool { return f.Vec == 8 && f.Type.Bits() == 32 }, At: GVec, PTX: V(8, 8), Arch: SM(100)},
		{Name: ".v4 with 64-bit types", When: func(f *Form) bool { return f.Vec == 4 && f.Type.Bits() == 64 }, At: GVec, PTX: V(8, 8), Arch: SM(100)},
		{Name: ".volatile with .local", When: func(f *Form) bool { return f.Sem == QVolatile && f.Space == QLocal }, At: GSpace, PTX: V(9, 1)},
	},
	Rules: stRules,
	finish: func(f *Form) {
		if f.Sem == QNone {
			f.Sem = QWeak
		}
		switch f.Space {
		case QShared:
			f.Space = QSharedCta
		case QParam:
			f.Space = QParamFunc
		}
	},
	operands: func(f *Form) []Operand {
		if f.CacheHint {
			return stOperandsPolicy
		}
		return stOperands
	},
}

var (
	stOperands       = []Operand{{"a", OpAddress}, {"b", OpValue}}
	stOperandsPolicy = []Operand{{"a", OpAddress}, {"b", OpValue}, {"cache-policy", OpPolicy}}
)

var stRules = []Rule{
	{ID: "st-const", Spec: secSt, At: GSpace,
		Bad: func(f *Form) bool { return f.Space == QConst },
		Msg: msg("stores to the .const state space are illegal"), Fix: "store to .global instead"},
	{ID: "st-param-entry", Spec: secSt + "; PTX ISA 5.1.6", At: GSpace,
		Bad: func(f *Form) bool { return f.Space == QParamEntry },
		Msg: msg("kernel parameters (.param::entry) are read-only; st.param writes .param::func"), Fix: "use st.param or st.param::func"},
	{ID: "st-sem-scope", Spec: secSt, At: GSem,
		Bad: func(f *Form) bool { return strong(f) && f.Scope == QNone },
		Msg: func(f *Form) string { return f.Sem.String() + " requires a scope" },
		Fix: "add a scope: .cta, .cluster, .gpu or .sys"},
	{ID: "st-scope-sem", Spec: secSt, At: GScope,
		Bad: func(f *Form) bool { return f.Scope != QNone && !strong(f) && !f.Mmio },
		Msg: func(f *Form) string {
			return "scope " + f.Scope.String() + " is only allowed with .relaxed or .release (this store is " + f.Sem.String() + ")"
		},
		Fix: "add .relaxed or .release, or remove the scope"},
	{ID: "st-mmio-relaxed", Spec: secSt, At: GMmio,
		Bad: func(f *Form) bool { return f.Mmio && f.Sem != QRelaxed },
		Msg: msg(".mmio must be used together with .relaxed"), Fix: "write st.mmio.relaxed.sys"},
	{ID: "st-mmio-scope", Spec: secSt, At: GMmio,
		Bad: func(f *Form) bool { return f.Mmio && f.Scope != QSys },
		Msg: msg("only the .sys scope is valid for st.mmio"), Fix: "write st.mmio.relaxed.sys"},
	{ID: "st-mmio-space", Spec: secSt, At: GSpace,
		Bad: func(f *Form) bool { return f.Mmio && !globalOrGeneric(f) },
		Msg: func(f *Form) string {
			return ".mmio may be used only with .global or generic addressing, not " + f.Written(GSpace).String()
		}},
	{ID: "st-mmio-form", Spec: secSt, At: GMmio,
		Bad: func(f *Form) bool {
			return f.Mmio && (f.Vec > 1 || f.Cop != QNone || f.L1Evict != QNone || f.L2Evict != QNone || f.CacheHint)
		},
		Msg: func(f *Form) string {
			return ".mmio cannot be combined with " + firstOf(f, GVec, GCop, GL1Evict, GL2Evict, GCacheHint).String() +
				" (syntax: st.mmio.relaxed.sys{.global}.type)"
		}},
	{ID: "st-sem-space", Spec: secSt, At: GSpace,
		Bad: func(f *Form) bool {
			return (strong(f) && (f.Space == QLocal || isParam(f.Space))) || (f.Sem == QVolatile && isParam(f.Space))
		},
		Msg: func(f *Form) string {
			return f.Sem.String() + " cannot be applied to the " + f.Written(GSpace).String() + " state space"
		}},
	{ID: "st-cop-sem", Spec: secSt, At: GCop,
		Bad: func(f *Form) bool { return f.Cop != QNone && (strong(f) || f.Sem == QVolatile) },
		Msg: func(f *Form) string {
			return "cache operator " + f.Cop.String() + " is not allowed with " + f.Sem.String()
		}, Fix: "remove the cache operator"},
	{ID: "st-cop-evict", Spec: secSt, At: GCop,
		Bad: func(f *Form) bool { return f.Cop != QNone && (f.L1Evict != QNone || f.L2Evict != QNone) },
		Msg: func(f *Form) string {
			return "cache operator " + f.Cop.String() + " cannot be combined with an eviction priority (" + firstOf(f, GL1Evict, GL2Evict).String() + ")"
		}},
	{ID: "st-volatile-evict", Spec: secSt, At: GSem,
		Bad: func(f *Form) bool {
			return f.Sem == QVolatile && (f.L1Evict != QNone || f.L2Evict != QNone || f.CacheHint)
		},
		Msg: func(f *Form) string {
			return ".volatile cannot be combined with " + firstOf(f, GL1Evict, GL2Evict, GCacheHint).String() + " (syntax: st.volatile{.ss}{.vec}.type)"
		}},
	{ID: "st-evict-space", Spec: secSt, At: GSpace,
		Bad: func(f *Form) bool {
			return (f.L1Evict != QNone || f.L2Evict != QNone) && !globalOrGeneric(f) && f.Space != QConst
		},
		Msg: func(f *Form) string {
			return "eviction priority " + firstOf(f, GL1Evict, GL2Evict).String() + " applies only to .global or generic addresses, not " + f.Written(GSpace).String()
		}},
	{ID: "st-cache-hint-space", Spec: secSt, At: GCacheHint,
		Bad: func(f *Form) bool { return f.CacheHint && !globalOrGeneric(f) && f.Space != QConst },
		Msg: func(f *Form) string {
			return ".L2::cache_hint is only supported for .global or generic addresses, not " + f.Written(GSpace).String()
		}},
	{ID: "st-vec-b128", Spec: secSt + "; PTX ISA 5.4.2", At: GVec,
		Bad: func(f *Form) bool { return f.Vec > 1 && f.Type == QB128 },
		Msg: msg("vectors of .b128 are not allowed (a vector is at most 128 bits, or 256 bits for .v8/.v4 of 32/64-bit types)")},
	{ID: "st-v8-type", Spec: secSt, At: GVec,
		Bad:     func(f *Form) bool { return f.Vec == 8 && f.Type != QNone && f.Type.Bits() != 32 },
		Ptxas13: func(f *Form) bool { return f.Type.Bits() < 32 },
		Msg: func(f *Form) string {
			return ".v8 is supported only with .b32, .s32, .u32 or .f32, not " + f.Type.String()
		}},
	{ID: "st-wide-vec-space", Spec: secSt, At: GVec,
		Bad: func(f *Form) bool { return wideVector(f) && !globalOrGeneric(f) && f.Space != QConst },
		Msg: func(f *Form) string {
			return f.Written(GVec).String() + f.Type.String() + " is supported only for .global or generic addresses, not " + f.Written(GSpace).String()
		}},
	{ID: "st-l2-evict-vec", Spec: secSt, At: GL2Evict,
		Bad: func(f *Form) bool { return f.L2Evict != QNone && !wideVector(f) },
		Msg: func(f *Form) string {
			return f.L2Evict.String() + " is supported only with .v8 of a 32-bit type or .v4 of a 64-bit type"
		}},
}

var stAsyncTypes = []Qual{QB8, QB16, QB32, QB64, QU8, QU16, QU32, QU64, QS8, QS16, QS32, QS64, QF32, QF64}

func releaseForm(f *Form) bool { return f.Sem == QRelease }

var stAsyncInstr = &Instr{
	Name:    "st.async",
	Opcode:  "st",
	SubOp:   QAsync,
	Section: secStAsync,
	Summary: "Asynchronous store; the weak form signals completion on an mbarrier, the release form is a release store to global memory.",
	Groups: []GroupSpec{
		{Group: GSubOp, Values: []Qual{QAsync}, Required: true},
		{Group: GMmio, Values: []Qual{QMmio}, Doc: "mmio operation (release form, .sys only)"},
		{Group: GSem, Values: []Qual{QWeak, QRelease}, Default: QWeak, Doc: ".weak (mbarrier form) or .release (global form)"},
		{Group: GScope, Values: []Qual{QCluster, QGpu, QSys}, Doc: ".cluster for the weak form; .gpu or .sys for the release form"},
		{Group: GSpace, Values: stSpaces, Doc: ".shared::cluster (weak form) or .global (release form); generic when absent"},
		{Group: GCompletion, Values: []Qual{QCompleteTx}, Doc: "complete-tx on the mbarrier operand (weak form)"},
		{Group: GVec, Values: []Qual{QV2, QV4}, Doc: "vector length (weak form)"},
		{Group: GType, Values: stAsyncTypes, Required: true, Doc: "type of the stored value"},
	},
	Features: []Feature{
		{Name: "st.async", PTX: V(8, 1), Arch: SM(90)},
		{Name: "st.async release form (.release, .mmio, .global, .gpu/.sys scope)", At: GSem,
			When: func(f *Form) bool {
				return releaseForm(f) || f.Mmio || f.Space == QGlobal || f.Scope == QGpu || f.Scope == QSys
			}, PTX: V(8, 7), Arch: SM(100)},
	},
	Rules: stAsyncRules,
	finish: func(f *Form) {
		if f.Sem == QNone {
			f.Sem = QWeak
		}
	},
	operands: func(f *Form) []Operand {
		if releaseForm(f) {
			return stAsyncReleaseOperands
		}
		return stAsyncOperands
	},
}

var (
	stAsyncOperands        = []Operand{{"a", OpAddress}, {"b", OpValue}, {"mbar", OpMbarrier}}
	stAsyncReleaseOperands = []Operand{{"a", OpAddress}, {"b", OpValue}}
)

// asyncWeakSpaceAccepted reports whether ptxas 13.0 accepts a weak
// st.async to a space other than .shared::cluster: .shared and
// .shared::cta always, .global without a completion mechanism.
func asyncWeakSpaceAccepted(f *Form) bool {
	switch f.Space {
	case QShared, QSharedCta:
		return !releaseForm(f)
	case QGlobal:
		return !releaseForm(f) && f.Complete == QNone
	}
	return false
}

var stAsyncRules = []Rule{
	{ID: "st-async-scope", Spec: secStAsync, At: GScope,
		Bad: func(f *Form) bool {
			if releaseForm(f) {
				return f.Scope != QGpu && f.Scope != QSys
			}
			return f.Scope != QNone && (f.Scope != QCluster || f.At[GSem] >= 0)
		},
		Msg: func(f *Form) string {
			if releaseForm(f) {
				return "st.async.release needs scope .gpu or .sys"
			}
			if f.Scope == QCluster {
				return ".weak and a scope are alternatives: write st.async.weak or st.async.cluster"
			}
			return "scope " + f.Scope.String() + " needs .release (the weak form takes only .cluster)"
		}},
	{ID: "st-async-mmio", Spec: secStAsync, At: GMmio,
		Bad: func(f *Form) bool { return f.Mmio && (!releaseForm(f) || f.Scope != QSys) },
		Msg: func(f *Form) string {
			if !releaseForm(f) {
				return ".mmio must not be specified on the weak (mbarrier) form of st.async"
			}
			return "st.async.mmio requires the .sys scope"
		}},
	{ID: "st-async-space", Spec: secStAsync, At: GSpace,
		Ptxas13: asyncWeakSpaceAccepted,
		Bad: func(f *Form) bool {
			if f.Space == QNone {
				return false
			}
			if releaseForm(f) {
				return f.Space != QGlobal
			}
			return f.Space != QSharedCluster
		},
		Msg: func(f *Form) string {
			if releaseForm(f) {
				return "st.async.release stores to .global, not " + f.Space.String()
			}
			return "st.async (weak form) stores to .shared::cluster, not " + f.Space.String()
		}, Fix: "use .shared::cluster, or omit the state space for generic addressing"},
	{ID: "st-async-completion", Spec: secStAsync, At: GCompletion,
		Bad: func(f *Form) bool { return releaseForm(f) == (f.Complete != QNone) },
		Ptxas13: func(f *Form) bool {
			return !releaseForm(f) && (f.Space == QShared || f.Space == QSharedCta || f.Space == QGlobal)
		},
		Msg: func(f *Form) string {
			if releaseForm(f) {
				return "st.async.release has no completion mechanism"
			}
			return "st.async needs .mbarrier::complete_tx::bytes"
		}},
	{ID: "st-async-type", Spec: secStAsync, At: GType,
		Bad: func(f *Form) bool { return !releaseForm(f) && f.Type != QNone && f.Type.Bits() < 32 },
		// ptxas 13.0: the form without [mbar] takes 16-bit types too.
		Ptxas13: func(f *Form) bool { return f.Type.Bits() == 16 }, Ptxas13Operands: 2,
		Msg: func(f *Form) string {
			return "the weak form of st.async stores 32- or 64-bit types, not " + f.Type.String()
		}},
	{ID: "st-async-vec", Spec: secStAsync, At: GVec,
		Bad: func(f *Form) bool { return f.Vec > 1 && (releaseForm(f) || f.Vec*f.Type.Bits() > 128) },
		Msg: func(f *Form) string {
			if releaseForm(f) {
				return "st.async.release takes no vector"
			}
			return f.Written(GVec).String() + f.Type.String() + " exceeds 128 bits (.v4 only with 32-bit types)"
		}},
}

// TMemRegs returns the number of 32-bit registers a tcgen05.ld/st of the
// given .shape and .num moves per thread (Table 50), or 0 for a
// combination the table marks NA.
func TMemRegs(shape Qual, num int) int {
	per := 0
	switch shape {
	case Q16x32bx2, Q16x64b, Q32x32b:
		per = 1
	case Q16x128b:
		per = 2
	case Q16x256b:
		per = 4
	}
	if n := per * num; n <= 128 {
		return n
	}
	return 0
}

// tcgen05Arch is the target requirement of the tcgen05 family (§9.7.16.8.4
// Target ISA Notes): sm_100a, sm_101a (renamed sm_110a in PTX 9.0), and
// from PTX 8.8 the family targets sm_100f, sm_101f/sm_110f and later
// members of those families.
var tcgen05Arch = Arch{Arch: []int{100, 101, 110}, Family: []int{100, 101, 110}, FamilySince: V(8, 8)}

var tcgen05StInstr = &Instr{
	Name:    "tcgen05.st",
	Opcode:  "tcgen05",
	SubOp:   QSt,
	Section: secTcgen05,
	Summary: "Asynchronous collective store from registers to tensor memory, across all threads of the warp.",
	Groups: []GroupSpec{
		{Group: GSubOp, Values: []Qual{QSt}, Required: true},
		{Group: GSync, Values: []Qual{QSync}, Required: true, Doc: "wait until all threads of the warp execute it"},
		{Group: GAligned, Values: []Qual{QAligned}, Required: true, Doc: "all threads of the warp execute the same tcgen05.st",
			Ptxas13Optional: true},
		{Group: GShape, Values: []Qual{Q16x64b, Q16x128b, Q16x256b, Q32x32b, Q16x32bx2}, Required: true, Doc: "base shape of the access"},
		{Group: GNum, Values: []Qual{QX1, QX2, QX4, QX8, QX16, QX32, QX64, QX128}, Required: true, Doc: "repeat factor along columns"},
		{Group: GUnpack, Values: []Qual{QUnpack16b}, Doc: "split each 32-bit register into two 16-bit cells"},
		{Group: GType, Values: []Qual{QB32}, Required: true},
	},
	Features: []Feature{
		{Name: "tcgen05.st", PTX: V(8, 6), Arch: tcgen05Arch},
	},
	Rules: []Rule{
		{ID: "tcgen05-shape-num", Spec: secTcgen05 + ", Table 50", At: GNum,
			Bad: func(f *Form) bool { return f.Shape != QNone && f.Num != 0 && TMemRegs(f.Shape, f.Num) == 0 },
			Msg: func(f *Form) string {
				return f.Shape.String() + " with " + f.Written(GNum).String() + " is not available (Table 50: NA, more than 128 registers)"
			}},
	},
	operands: func(f *Form) []Operand {
		if f.Shape == Q16x32bx2 {
			return tcgenSplitOperands
		}
		return tcgenOperands
	},
}

var (
	tcgenOperands      = []Operand{{"taddr", OpAddress}, {"r", OpRegVector}}
	tcgenSplitOperands = []Operand{{"taddr", OpAddress}, {"immHalfSplitoff", OpImm}, {"r", OpRegVector}}
)

func init() {
	register(stInstr)
	register(stAsyncInstr)
	register(tcgen05StInstr)
	indexOpcodes()
}
