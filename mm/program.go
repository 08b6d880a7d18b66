// Package mm implements the PTX memory consistency model (PTX ISA chapter
// "Memory Consistency Model", §8) axiomatically and decides litmus tests
// against it.
//
// A litmus test (Program) is a handful of threads placed in CTAs and GPUs,
// each a short list of instructions, and a condition over the final registers
// and memory. Check enumerates the candidate executions of the program
// (control paths, reads-from, coherence, fence-SC order and barrier arrival
// order), keeps those the axioms of §8.10 allow and evaluates the condition.
//
// Two model versions are provided: PTXv60, the model of PTX ISA 6.0 (scopes,
// strong and weak operations, fences, RMWs and bar barriers), and PTXv75,
// which adds the proxies of PTX ISA 7.5 (§8.6: virtual aliases; generic,
// surface, texture and constant proxies; fence.proxy.*), and the asynchronous
// proxy extension described in docs/litmus.md.
package mm

import "fmt"

// Sem is the memory-ordering semantics of an operation (§8.4, Table 20).
type Sem uint8

// Semantics, weakest first.
const (
	Weak Sem = iota
	Relaxed
	Acquire
	Release
	AcqRel
	SC
)

var semNames = [...]string{"weak", "relaxed", "acquire", "release", "acq_rel", "sc"}

func (s Sem) String() string { return semNames[s] }

// Scope is the set of threads a strong operation synchronizes with directly
// (§8.5, Table 21).
type Scope uint8

// Scopes, narrowest first. NoScope is the scope of a weak operation.
const (
	NoScope Scope = iota
	ScopeCTA
	ScopeCluster
	ScopeGPU
	ScopeSys
)

var scopeNames = [...]string{"", "cta", "cluster", "gpu", "sys"}

func (s Scope) String() string { return scopeNames[s] }

// Proxy is the memory proxy through which an access is performed (§8.6).
type Proxy uint8

// Proxies. Generic is the proxy of ordinary ld/st; Async is the asynchronous
// proxy of cp.async.bulk and its kin (§8.6, §9.7.9.25.2).
const (
	Generic Proxy = iota
	Surface
	Texture
	Constant
	Async
)

var proxyNames = [...]string{"generic", "surface", "texture", "constant", "async"}

func (p Proxy) String() string { return proxyNames[p] }

// Quantifier is the quantifier of a litmus condition.
type Quantifier uint8

// Quantifiers: exists C, ~exists C, forall C.
const (
	Exists Quantifier = iota
	NotExists
	Forall
)

var quantNames = [...]string{"exists", "~exists", "forall"}

func (q Quantifier) String() string { return quantNames[q] }

// Location is one virtual address of a litmus test. Several virtual
// addresses may alias one physical location (§8.2.2 aliases, §8.6 proxies).
type Location struct {
	Name  string
	Phys  int   // index of the physical location
	Virt  int   // index of the virtual address; a non-generic alias shares its target's
	Proxy Proxy // the proxy named in an alias declaration (informative)
}

// Operand is a register or an immediate.
type Operand struct {
	Reg string // non-empty for a register
	Val int64
}

func (o Operand) String() string {
	if o.Reg != "" {
		return o.Reg
	}
	return fmt.Sprint(o.Val)
}

// Op is the kind of an instruction.
type Op uint8

// Instruction kinds.
const (
	OpLoad   Op = iota // ld, suld, tld, cold
	OpStore            // st, sust
	OpRMW              // atom (with Dst) and red (without)
	OpFence            // fence.sc, fence.acq_rel, fence.proxy.*
	OpBar              // bar.cta.sync, bar.cta.arrive
	OpMove             // ld rN, imm (a register move)
	OpArith            // add, sub, mul, div on registers
	OpBranch           // beq/bne/blt/bgt/ble/bge a, b, label
	OpGoto             // goto label
	OpLabel            // label:
	// Asynchronous-proxy extension (docs/litmus.md).
	OpStAsync    // st.async loc, v, mbar: weak store with complete-tx on mbar
	OpBulkCopy   // cp.async.bulk dst, src, mbar: async-proxy copy with complete-tx on mbar
	OpMbarArrive // mbarrier.arrive[.sem.scope] mbar
	OpMbarWait   // mbarrier.try_wait[.sem.scope] rP, mbar
)

// FenceKind distinguishes the fences.
type FenceKind uint8

// Fence kinds.
const (
	FenceSC     FenceKind = iota // fence.sc.scope
	FenceAcqRel                  // fence.acq_rel.scope
	FenceProxy                   // fence.proxy.<proxy>
	FenceAlias                   // fence.proxy.alias
)

// Instr is one litmus instruction.
type Instr struct {
	Line   int
	Text   string
	Op     Op
	Sem    Sem
	Scope  Scope
	Proxy  Proxy
	Dst    string    // destination register
	Loc    string    // memory location (virtual address)
	Loc2   string    // second location (bulk copy source)
	Mbar   string    // mbarrier location (async extension)
	Args   []Operand // store value; RMW operand(s); arith sources; branch operands
	RMW    string    // add, sub, exch, cas, ...
	Fence  FenceKind
	Label  string // branch target or label name
	Cmp    string // branch comparison: eq, ne, lt, gt, le, ge
	BarIns int    // barrier instance number
	BarID  Operand
	BarCnt int // quorum; 0 = every thread that reaches the instance
	Arrive bool
}

// Thread is one column of a litmus test.
type Thread struct {
	Name    string // P0, P1, ...
	CTA     int
	GPU     int
	Cluster int // -1: the CTA is its own cluster
	Code    []Instr
	RegInit map[string]int64
}

func (t *Thread) cluster() int {
	if t.Cluster < 0 {
		return -1 - t.CTA
	}
	return t.Cluster
}

// Program is a parsed litmus test.
type Program struct {
	Name      string
	Locs      []Location
	PhysNames []string // name of each physical location
	PhysInit  []int64
	Threads   []Thread
	Quant     Quantifier
	Cond      Cond
	CondText  string
	Filter    Cond     // executions whose final state fails it are not considered; nil for none
	Mbars     []string // mbarrier objects (asynchronous-proxy extension)

	initRegs map[string]map[string]int64 // "P0" or "0" -> register -> value
}

func (p *Program) nextVirt() int {
	n := 0
	for _, l := range p.Locs {
		n = max(n, l.Virt+1)
	}
	return n
}

// LocIndex returns the index of the named location, or -1.
func (p *Program) LocIndex(name string) int {
	for i, l := range p.Locs {
		if l.Name == name {
			return i
		}
	}
	return -1
}

// addLoc returns the index of the named location, declaring it (its own
// physical location, initial value 0) when it is new.
func (p *Program) addLoc(name string) int {
	if i := p.LocIndex(name); i >= 0 {
		return i
	}
	p.PhysNames = append(p.PhysNames, name)
	p.PhysInit = append(p.PhysInit, 0)
	p.Locs = append(p.Locs, Location{Name: name, Phys: len(p.PhysNames) - 1, Virt: p.nextVirt()})
	return len(p.Locs) - 1
}
