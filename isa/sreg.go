package isa

import "strconv"

// SRegKind names a special register or, for the numbered families
// (%pm<n>, %pm<n>_64, %envreg<n>), the family; SReg.Index gives the number.
type SRegKind uint8

// Special register kinds, in the order of PTX ISA 8.5 chapter 10.
const (
	SRegNone              SRegKind = iota
	SRegTid                        // §10.1
	SRegNtid                       // §10.2
	SRegLaneid                     // §10.3
	SRegWarpid                     // §10.4
	SRegNwarpid                    // §10.5
	SRegCtaid                      // §10.6
	SRegNctaid                     // §10.7
	SRegSmid                       // §10.8
	SRegNsmid                      // §10.9
	SRegGridid                     // §10.10
	SRegIsExplicitCluster          // §10.11
	SRegClusterid                  // §10.12
	SRegNclusterid                 // §10.13
	SRegClusterCtaid               // §10.14
	SRegClusterNctaid              // §10.15
	SRegClusterCtarank             // §10.16
	SRegClusterNctarank            // §10.17
	SRegLanemaskEq                 // §10.18
	SRegLanemaskLe                 // §10.19
	SRegLanemaskLt                 // §10.20
	SRegLanemaskGe                 // §10.21
	SRegLanemaskGt                 // §10.22
	SRegClock                      // §10.23
	SRegClockHi                    // §10.23
	SRegClock64                    // §10.24
	SRegPM                         // §10.25, %pm0..%pm7
	SRegPM64                       // §10.26, %pm0_64..%pm7_64
	SRegEnvreg                     // §10.27, %envreg0..%envreg31
	SRegGlobaltimer                // §10.28
	SRegGlobaltimerLo              // §10.28
	SRegGlobaltimerHi              // §10.28
	SRegReservedSmemBegin          // §10.29
	SRegReservedSmemEnd            // §10.29
	SRegReservedSmemCap            // §10.29
	SRegReservedSmem0              // §10.29
	SRegReservedSmem1              // §10.29
	SRegTotalSmemSize              // §10.30
	SRegAggrSmemSize               // §10.31
	SRegDynamicSmemSize            // §10.32
	SRegCurrentGraphExec           // §10.33
	numSRegKinds
)

// SReg describes a predefined, read-only special register (PTX ISA
// chapter 10, "Special Registers"). It is the one description of special
// registers: the resolver, the checker, the emulator and the language
// server read it.
type SReg struct {
	Kind    SRegKind
	Index   int    // the number of a numbered family member (%envreg3: 3)
	Name    string // "%tid"
	Type    Qual   // type of the register or of each component: .u32, .u64, .b32, .pred
	Vector  bool   // a .v4 register read per component (.x .y .z, and .w where allowed)
	PTX     Version
	Arch    Arch   // first target that has it
	Section string // "PTX ISA 10.1"
	Meaning string // one line: what it holds
	Number  int    // its position in SRegs
}

// sregSpecs lists the special registers; the numbered families appear
// once with Index -1 and are expanded by init.
var sregSpecs = []SReg{
	{Kind: SRegTid, Name: "%tid", Type: QU32, Vector: true, PTX: V(1, 0), Arch: SM(10), Section: "PTX ISA 10.1",
		Meaning: "thread identifier within the CTA (x, y, z), from 0 to %ntid-1 in each dimension"},
	{Kind: SRegNtid, Name: "%ntid", Type: QU32, Vector: true, PTX: V(1, 0), Arch: SM(10), Section: "PTX ISA 10.2",
		Meaning: "number of threads in the CTA in each dimension (the CTA shape)"},
	{Kind: SRegLaneid, Name: "%laneid", Type: QU32, PTX: V(1, 3), Arch: SM(10), Section: "PTX ISA 10.3",
		Meaning: "lane of the thread within its warp, 0 to WARP_SZ-1"},
	{Kind: SRegWarpid, Name: "%warpid", Type: QU32, PTX: V(1, 3), Arch: SM(10), Section: "PTX ISA 10.4",
		Meaning: "warp identifier within the CTA; it may change while the thread runs (after preemption), so use it only for profiling"},
	{Kind: SRegNwarpid, Name: "%nwarpid", Type: QU32, PTX: V(2, 0), Arch: SM(20), Section: "PTX ISA 10.5",
		Meaning: "maximum number of warp identifiers"},
	{Kind: SRegCtaid, Name: "%ctaid", Type: QU32, Vector: true, PTX: V(1, 0), Arch: SM(10), Section: "PTX ISA 10.6",
		Meaning: "CTA identifier within the grid (x, y, z), from 0 to %nctaid-1 in each dimension"},
	{Kind: SRegNctaid, Name: "%nctaid", Type: QU32, Vector: true, PTX: V(1, 0), Arch: SM(10), Section: "PTX ISA 10.7",
		Meaning: "number of CTAs in the grid in each dimension"},
	{Kind: SRegSmid, Name: "%smid", Type: QU32, PTX: V(1, 3), Arch: SM(10), Section: "PTX ISA 10.8",
		Meaning: "identifier of the multiprocessor running the thread; it may change while the thread runs"},
	{Kind: SRegNsmid, Name: "%nsmid", Type: QU32, PTX: V(2, 0), Arch: SM(20), Section: "PTX ISA 10.9",
		Meaning: "maximum number of multiprocessor identifiers (identifiers need not be contiguous)"},
	{Kind: SRegGridid, Name: "%gridid", Type: QU64, PTX: V(1, 0), Arch: SM(10), Section: "PTX ISA 10.10",
		Meaning: "temporal grid launch number, unique per launch of the program"},
	{Kind: SRegIsExplicitCluster, Name: "%is_explicit_cluster", Type: QPred, PTX: V(7, 8), Arch: SM(90), Section: "PTX ISA 10.11",
		Meaning: "true when the launch gave an explicit cluster shape, false when the cluster is the implicit 1x1x1"},
	{Kind: SRegClusterid, Name: "%clusterid", Type: QU32, Vector: true, PTX: V(7, 8), Arch: SM(90), Section: "PTX ISA 10.12",
		Meaning: "cluster identifier within the grid (x, y, z)"},
	{Kind: SRegNclusterid, Name: "%nclusterid", Type: QU32, Vector: true, PTX: V(7, 8), Arch: SM(90), Section: "PTX ISA 10.13",
		Meaning: "number of clusters in the grid in each dimension"},
	{Kind: SRegClusterCtaid, Name: "%cluster_ctaid", Type: QU32, Vector: true, PTX: V(7, 8), Arch: SM(90), Section: "PTX ISA 10.14",
		Meaning: "CTA identifier within its cluster (x, y, z)"},
	{Kind: SRegClusterNctaid, Name: "%cluster_nctaid", Type: QU32, Vector: true, PTX: V(7, 8), Arch: SM(90), Section: "PTX ISA 10.15",
		Meaning: "number of CTAs in the cluster in each dimension"},
	{Kind: SRegClusterCtarank, Name: "%cluster_ctarank", Type: QU32, PTX: V(7, 8), Arch: SM(90), Section: "PTX ISA 10.16",
		Meaning: "rank of the CTA within its cluster, from 0 to %cluster_nctarank-1 (the rank mapa and .shared::cluster addresses use)"},
	{Kind: SRegClusterNctarank, Name: "%cluster_nctarank", Type: QU32, PTX: V(7, 8), Arch: SM(90), Section: "PTX ISA 10.17",
		Meaning: "number of CTAs in the cluster"},
	{Kind: SRegLanemaskEq, Name: "%lanemask_eq", Type: QU32, PTX: V(2, 0), Arch: SM(20), Section: "PTX ISA 10.18",
		Meaning: "32-bit mask with only the bit of the thread's lane set"},
	{Kind: SRegLanemaskLe, Name: "%lanemask_le", Type: QU32, PTX: V(2, 0), Arch: SM(20), Section: "PTX ISA 10.19",
		Meaning: "32-bit mask with the bits of lanes less than or equal to the thread's lane set"},
	{Kind: SRegLanemaskLt, Name: "%lanemask_lt", Type: QU32, PTX: V(2, 0), Arch: SM(20), Section: "PTX ISA 10.20",
		Meaning: "32-bit mask with the bits of lanes less than the thread's lane set"},
	{Kind: SRegLanemaskGe, Name: "%lanemask_ge", Type: QU32, PTX: V(2, 0), Arch: SM(20), Section: "PTX ISA 10.21",
		Meaning: "32-bit mask with the bits of lanes greater than or equal to the thread's lane set"},
	{Kind: SRegLanemaskGt, Name: "%lanemask_gt", Type: QU32, PTX: V(2, 0), Arch: SM(20), Section: "PTX ISA 10.22",
		Meaning: "32-bit mask with the bits of lanes greater than the thread's lane set"},
	{Kind: SRegClock, Name: "%clock", Type: QU32, PTX: V(1, 0), Arch: SM(10), Section: "PTX ISA 10.23",
		Meaning: "32-bit cycle counter of the multiprocessor (wraps silently)"},
	{Kind: SRegClockHi, Name: "%clock_hi", Type: QU32, PTX: V(5, 0), Arch: SM(20), Section: "PTX ISA 10.23",
		Meaning: "upper 32 bits of %clock64"},
	{Kind: SRegClock64, Name: "%clock64", Type: QU64, PTX: V(2, 0), Arch: SM(20), Section: "PTX ISA 10.24",
		Meaning: "64-bit cycle counter of the multiprocessor"},
	{Kind: SRegPM, Index: -1, Name: "%pm", Type: QU32, PTX: V(1, 3), Arch: SM(10), Section: "PTX ISA 10.25",
		Meaning: "32-bit performance monitoring counter"},
	{Kind: SRegPM64, Index: -1, Name: "%pm", Type: QU64, PTX: V(4, 0), Arch: SM(50), Section: "PTX ISA 10.26",
		Meaning: "64-bit performance monitoring counter"},
	{Kind: SRegEnvreg, Index: -1, Name: "%envreg", Type: QB32, PTX: V(2, 1), Arch: SM(20), Section: "PTX ISA 10.27",
		Meaning: "driver-defined read-only register describing the launch environment"},
	{Kind: SRegGlobaltimer, Name: "%globaltimer", Type: QU64, PTX: V(3, 1), Arch: SM(30), Section: "PTX ISA 10.28",
		Meaning: "64-bit global timer in nanoseconds"},
	{Kind: SRegGlobaltimerLo, Name: "%globaltimer_lo", Type: QU32, PTX: V(3, 1), Arch: SM(30), Section: "PTX ISA 10.28",
		Meaning: "lower 32 bits of %globaltimer"},
	{Kind: SRegGlobaltimerHi, Name: "%globaltimer_hi", Type: QU32, PTX: V(3, 1), Arch: SM(30), Section: "PTX ISA 10.28",
		Meaning: "upper 32 bits of %globaltimer"},
	{Kind: SRegReservedSmemBegin, Name: "%reserved_smem_offset_begin", Type: QB32, PTX: V(7, 6), Arch: SM(80), Section: "PTX ISA 10.29",
		Meaning: "offset of the start of the shared memory the system reserves in the CTA's window"},
	{Kind: SRegReservedSmemEnd, Name: "%reserved_smem_offset_end", Type: QB32, PTX: V(7, 6), Arch: SM(80), Section: "PTX ISA 10.29",
		Meaning: "offset of the end of the shared memory the system reserves in the CTA's window"},
	{Kind: SRegReservedSmemCap, Name: "%reserved_smem_offset_cap", Type: QB32, PTX: V(7, 6), Arch: SM(80), Section: "PTX ISA 10.29",
		Meaning: "size in bytes of the shared memory the system reserves in the CTA's window"},
	{Kind: SRegReservedSmem0, Name: "%reserved_smem_offset_0", Type: QB32, PTX: V(7, 6), Arch: SM(80), Section: "PTX ISA 10.29",
		Meaning: "offset of the first slot of the shared memory the system reserves in the CTA's window"},
	{Kind: SRegReservedSmem1, Name: "%reserved_smem_offset_1", Type: QB32, PTX: V(7, 6), Arch: SM(80), Section: "PTX ISA 10.29",
		Meaning: "offset of the second slot of the shared memory the system reserves in the CTA's window"},
	{Kind: SRegTotalSmemSize, Name: "%total_smem_size", Type: QU32, PTX: V(4, 1), Arch: SM(20), Section: "PTX ISA 10.30",
		Meaning: "shared memory of the CTA in bytes: static and dynamic, without the reserved part"},
	{Kind: SRegAggrSmemSize, Name: "%aggr_smem_size", Type: QU32, PTX: V(8, 1), Arch: SM(90), Section: "PTX ISA 10.31",
		Meaning: "shared memory of the CTA in bytes including the reserved part"},
	{Kind: SRegDynamicSmemSize, Name: "%dynamic_smem_size", Type: QU32, PTX: V(4, 1), Arch: SM(20), Section: "PTX ISA 10.32",
		Meaning: "dynamic shared memory of the CTA in bytes, as given at launch"},
	{Kind: SRegCurrentGraphExec, Name: "%current_graph_exec", Type: QU64, PTX: V(8, 0), Arch: SM(50), Section: "PTX ISA 10.33",
		Meaning: "handle of the CUDA graph executable running the kernel, or 0"},
}

// sregCount is how many members each numbered family has.
var sregCount = map[SRegKind]int{SRegPM: 8, SRegPM64: 8, SRegEnvreg: 32}

var (
	sregs      []*SReg   // every special register, in table order
	sregByName *strIndex // name ("%envreg3") -> position in sregs
)

func init() {
	n := 0
	for _, spec := range sregSpecs {
		n += max(1, sregCount[spec.Kind])
	}
	table := make([]SReg, 0, n) // one allocation for every register
	sregs = make([]*SReg, 0, n)
	add := func(r SReg) {
		r.Number = len(table)
		table = append(table, r)
		sregs = append(sregs, &table[len(table)-1])
	}
	for _, spec := range sregSpecs {
		if spec.Index >= 0 {
			add(spec)
			continue
		}
		for i := range sregCount[spec.Kind] {
			r := spec
			r.Index = i
			r.Name = spec.Name + strconv.Itoa(i)
			if spec.Kind == SRegPM64 {
				r.Name += "_64"
			}
			add(r)
		}
	}
	names, pos := make([]string, len(sregs)), make([]uint16, len(sregs))
	for i, r := range sregs {
		names[i], pos[i] = r.Name, uint16(i)
	}
	sregByName = newStrIndex(names, pos)
}

// LookupSReg returns the special register called name ("%tid",
// "%cluster_ctarank", "%envreg3"), or nil when name is not one.
func LookupSReg(name string) *SReg {
	if i := SRegNumber(name); i >= 0 {
		return sregs[i]
	}
	return nil
}

// SRegNumber returns the position in SRegs of the special register called
// name, or -1 when name is not one.
func SRegNumber(name string) int {
	if len(name) == 0 || name[0] != '%' {
		return -1
	}
	if i, ok := sregByName.Get(name); ok {
		return int(i)
	}
	return -1
}

// SRegs returns every special register, in the order of PTX ISA chapter
// 10. The caller must not modify them.
func SRegs() []*SReg { return sregs }

// Allowed reports whether a module of version v for target t may read r;
// a zero version or target is not checked.
func (r *SReg) Allowed(v Version, t Target) bool {
	return (v == 0 || v >= r.PTX) && (t.SM == 0 || r.Arch.Allows(t, v))
}
