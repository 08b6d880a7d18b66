package isa

import "strings"

// Qual is a known qualifier spelling, mapped to a small integer once so
// that checks compare integers instead of strings. QNone is "absent".
type Qual uint16

// Known qualifiers. The list covers the store pages (PTX ISA §9.7.9.11,
// §9.7.9.12, §9.7.16.8.4) and the spellings of neighbouring instructions
// that users put on a store by mistake (.ca, .lu, .cv, .acquire, ...), so
// that those get "not allowed on st" rather than "unknown".
const (
	QNone Qual = iota

	// memory ordering (.sem) and .mmio
	QWeak
	QVolatile
	QRelaxed
	QRelease
	QAcquire
	QAcqRel
	QMmio

	// scopes
	QCta
	QCluster
	QGpu
	QSys

	// state spaces
	QGlobal
	QLocal
	QShared
	QSharedCta
	QSharedCluster
	QParam
	QParamFunc
	QParamEntry
	QConst
	QTex
	QGeneric // not a spelling: the generic address space, for analyses

	// cache operators
	QWb
	QCg
	QCs
	QWt
	QCa
	QLu
	QCv

	// eviction priorities and cache hints
	QL1EvictNormal
	QL1EvictUnchanged
	QL1EvictFirst
	QL1EvictLast
	QL1NoAllocate
	QL2EvictNormal
	QL2EvictFirst
	QL2EvictLast
	QL2CacheHint

	// vectors
	QV2
	QV3
	QV4
	QV8

	// types
	QB8
	QB16
	QB32
	QB64
	QB128
	QU8
	QU16
	QU32
	QU64
	QS8
	QS16
	QS32
	QS64
	QF16
	QF16x2
	QBF16
	QBF16x2
	QF32
	QF64
	QPred

	// sub-opcodes and completion
	QAsync
	QSt
	QCompleteTx

	// tcgen05
	QSync
	QAligned
	Q16x64b
	Q16x128b
	Q16x256b
	Q32x32b
	Q16x32bx2
	QX1
	QX2
	QX4
	QX8
	QX16
	QX32
	QX64
	QX128
	QUnpack16b

	// numStoreQuals is the first Qual of the spellings generated from
	// data/instructions.txt (zforms.go), which ends the list with
	// numQuals.
	numStoreQuals
)

// Group is the grammar slot a qualifier fills (.sem, .ss, .cop, ...).
// An instruction carries at most one qualifier of each group.
type Group uint8

const (
	GNone Group = iota
	GSubOp
	GSem
	GMmio
	GScope
	GSpace
	GCop
	GL1Evict
	GL2Evict
	GCacheHint
	GVec
	GType
	GCompletion
	GSync
	GAligned
	GShape
	GNum
	GUnpack
	GMod // a modifier of an instruction described in data/instructions.txt

	NumGroups
)

var groupNames = [NumGroups]string{
	GNone: "", GSubOp: "sub-opcode", GSem: ".sem", GMmio: ".mmio", GScope: ".scope",
	GSpace: "state space", GCop: "cache operator", GL1Evict: ".level1::eviction_priority",
	GL2Evict: ".level2::eviction_priority", GCacheHint: ".level::cache_hint", GVec: ".vec",
	GType: ".type", GCompletion: ".completion_mechanism", GSync: ".sync", GAligned: ".aligned",
	GShape: ".shape", GNum: ".num", GUnpack: ".unpack", GMod: "modifier",
}

func (g Group) String() string { return groupNames[g] }

// qualInfo describes one qualifier spelling.
type qualInfo struct {
	name  string
	group Group
	bits  int  // type width or vector length or .num repeat
	kind  byte // for types: 'b', 'u', 's', 'f', 'p'
}

var storeQuals = [numStoreQuals]qualInfo{
	QWeak: {".weak", GSem, 0, 0}, QVolatile: {".volatile", GSem, 0, 0},
	QRelaxed: {".relaxed", GSem, 0, 0}, QRelease: {".release", GSem, 0, 0},
	QAcquire: {".acquire", GSem, 0, 0}, QAcqRel: {".acq_rel", GSem, 0, 0},
	QMmio: {".mmio", GMmio, 0, 0},

	QCta: {".cta", GScope, 0, 0}, QCluster: {".cluster", GScope, 0, 0},
	QGpu: {".gpu", GScope, 0, 0}, QSys: {".sys", GScope, 0, 0},

	QGlobal: {".global", GSpace, 0, 0}, QLocal: {".local", GSpace, 0, 0},
	QShared: {".shared", GSpace, 0, 0}, QSharedCta: {".shared::cta", GSpace, 0, 0},
	QSharedCluster: {".shared::cluster", GSpace, 0, 0}, QParam: {".param", GSpace, 0, 0},
	QParamFunc: {".param::func", GSpace, 0, 0}, QParamEntry: {".param::entry", GSpace, 0, 0},
	QConst: {".const", GSpace, 0, 0}, QTex: {".tex", GSpace, 0, 0},
	QGeneric: {"generic", GNone, 0, 0},

	QWb: {".wb", GCop, 0, 0}, QCg: {".cg", GCop, 0, 0}, QCs: {".cs", GCop, 0, 0},
	QWt: {".wt", GCop, 0, 0}, QCa: {".ca", GCop, 0, 0}, QLu: {".lu", GCop, 0, 0},
	QCv: {".cv", GCop, 0, 0},

	QL1EvictNormal: {".L1::evict_normal", GL1Evict, 0, 0}, QL1EvictUnchanged: {".L1::evict_unchanged", GL1Evict, 0, 0},
	QL1EvictFirst: {".L1::evict_first", GL1Evict, 0, 0}, QL1EvictLast: {".L1::evict_last", GL1Evict, 0, 0},
	QL1NoAllocate:  {".L1::no_allocate", GL1Evict, 0, 0},
	QL2EvictNormal: {".L2::evict_normal", GL2Evict, 0, 0}, QL2EvictFirst: {".L2::evict_first", GL2Evict, 0, 0},
	QL2EvictLast: {".L2::evict_last", GL2Evict, 0, 0}, QL2CacheHint: {".L2::cache_hint", GCacheHint, 0, 0},

	QV2: {".v2", GVec, 2, 0}, QV3: {".v3", GVec, 3, 0}, QV4: {".v4", GVec, 4, 0}, QV8: {".v8", GVec, 8, 0},

	QB8: {".b8", GType, 8, 'b'}, QB16: {".b16", GType, 16, 'b'}, QB32: {".b32", GType, 32, 'b'},
	QB64: {".b64", GType, 64, 'b'}, QB128: {".b128", GType, 128, 'b'},
	QU8: {".u8", GType, 8, 'u'}, QU16: {".u16", GType, 16, 'u'}, QU32: {".u32", GType, 32, 'u'}, QU64: {".u64", GType, 64, 'u'},
	QS8: {".s8", GType, 8, 's'}, QS16: {".s16", GType, 16, 's'}, QS32: {".s32", GType, 32, 's'}, QS64: {".s64", GType, 64, 's'},
	QF16: {".f16", GType, 16, 'f'}, QF16x2: {".f16x2", GType, 32, 'x'}, QBF16: {".bf16", GType, 16, 'f'},
	QBF16x2: {".bf16x2", GType, 32, 'x'}, QF32: {".f32", GType, 32, 'f'}, QF64: {".f64", GType, 64, 'f'},
	QPred: {".pred", GType, 1, 'p'},

	QAsync: {".async", GSubOp, 0, 0}, QSt: {".st", GSubOp, 0, 0},
	QCompleteTx: {".mbarrier::complete_tx::bytes", GCompletion, 0, 0},

	QSync: {".sync", GSync, 0, 0}, QAligned: {".aligned", GAligned, 0, 0},
	Q16x64b: {".16x64b", GShape, 0, 0}, Q16x128b: {".16x128b", GShape, 0, 0},
	Q16x256b: {".16x256b", GShape, 0, 0}, Q32x32b: {".32x32b", GShape, 0, 0},
	Q16x32bx2: {".16x32bx2", GShape, 0, 0},
	QX1:       {".x1", GNum, 1, 0}, QX2: {".x2", GNum, 2, 0}, QX4: {".x4", GNum, 4, 0},
	QX8: {".x8", GNum, 8, 0}, QX16: {".x16", GNum, 16, 0}, QX32: {".x32", GNum, 32, 0},
	QX64: {".x64", GNum, 64, 0}, QX128: {".x128", GNum, 128, 0},
	QUnpack16b: {".unpack::16b", GUnpack, 0, 0},
}

// LookupQual maps a spelling (".shared::cta") to its Qual, or QNone.
func LookupQual(name string) Qual { return lookupQual(name) }

// String returns the spelling with its leading dot, or "" for QNone.
func (q Qual) String() string {
	if q >= numQuals {
		return "?"
	}
	return q.info().name
}

// Group returns the grammar slot of q.
func (q Qual) Group() Group { return q.info().group }

// Bits returns the width of a type qualifier, the length of a vector
// qualifier or the repeat factor of a .num qualifier; 0 otherwise.
func (q Qual) Bits() int { return q.info().bits }

// Kind returns a type's kind: 'b' bit-size, 'u' unsigned, 's' signed, 'f'
// float, 'x' packed float pair, 'p' predicate; 0 for non-types.
func (q Qual) Kind() byte { return q.info().kind }

// Bytes returns the width in bytes of a type qualifier.
func (q Qual) Bytes() int { return q.info().bits / 8 }

// TypeByName maps a register type spelling (".u32") to its Qual; QNone
// when name is not a type.
func TypeByName(name string) Qual {
	q := lookupQual(name)
	if q.Group() != GType {
		return QNone
	}
	return q
}

// BitType returns the bit-size type of a width (.b8 to .b128), or QNone.
func BitType(bits int) Qual {
	for _, q := range []Qual{QB8, QB16, QB32, QB64, QB128} {
		if q.Bits() == bits {
			return q
		}
	}
	return QNone
}

// info describes q: from the store tables' spellings (storeQuals) or the
// generated ones (genQuals, zforms.go), both laid out by the linker.
func (q Qual) info() *qualInfo {
	if q < numStoreQuals {
		return &storeQuals[q]
	}
	return &genQuals[q-numStoreQuals]
}

// MatrixShape returns M, N and K of a matrix shape qualifier (.m16n8k16,
// .m64n256k32, ...); ok is false for any other qualifier.
func (q Qual) MatrixShape() (m, n, k int, ok bool) {
	s, ok := strings.CutPrefix(q.String(), ".")
	if !ok {
		return 0, 0, 0, false
	}
	var dims [3]int
	for i, letter := range []byte("mnk") {
		if s == "" || s[0] != letter {
			return 0, 0, 0, false
		}
		j := 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			dims[i] = dims[i]*10 + int(s[j]-'0')
			j++
		}
		if j == 1 {
			return 0, 0, 0, false
		}
		s = s[j:]
	}
	if s != "" {
		return 0, 0, 0, false
	}
	return dims[0], dims[1], dims[2], true
}
