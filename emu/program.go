package emu

import (
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Status is what an instruction handler tells the interpreter loop.
type Status uint8

const (
	// Continue: the instruction completed for every executing lane; the
	// warp goes on at w.Next (pc+1 unless the handler changed it).
	Continue Status = iota
	// Retry: the instruction cannot complete yet (a wait whose condition
	// does not hold). The pc stays; the warp yields and the instruction is
	// executed again later. A scheduling round in which every warp retries
	// or is blocked and no asynchronous operation is pending is a deadlock;
	// set Warp.WaitWhat before returning Retry so the report says why.
	Retry
	// Fault: the handler reported undefined behaviour with Warp.Fault.
	Fault
	// Yield: the instruction completed (as Continue), and the warp gives
	// the rest of its quantum to the others (nanosleep).
	Yield
)

// ExecFunc executes one decoded instruction for the lanes in w.Exec.
// Handlers read and write registers through w.R (slot base + lane), reach
// memory through w.Load/w.Store/w.Bytes, and report undefined behaviour
// with w.Fault. They must not allocate in the common path.
type ExecFunc func(w *Warp, in *Inst) Status

// Inst is one decoded instruction. Register operands are slot bases: the
// value of lane l of operand A is w.R[in.A+l]. Immediates, special
// registers and symbol addresses are also slots (filled when a warp
// starts), so handlers never distinguish operand kinds. -1 means absent
// (or "_" for vector elements).
type Inst struct {
	Exec     ExecFunc
	Guard    int32 // slot base of the guard predicate, or -1
	GuardNeg bool
	Type     Type  // the instruction type (last type qualifier)
	Type2    Type  // source type of cvt, etc.
	Space    Space // state space of a memory instruction
	Round    Round
	Vec      uint8 // vector length of ld/st/atom (1 for scalars)
	Cmp      uint8 // comparison of setp/set
	Flags    uint16
	D, A, B  int32
	C, D2    int32
	V        [8]int32 // vector elements of ld/st
	Off      int64    // address displacement
	Imm      uint64   // handler-specific constant
	Target   int32    // branch / call target pc
	Pos      token.Pos
	Opcode   string // as written, for reports
	Ext      any    // extension data attached by a decoder
	storeCnt int32  // bytes moved per lane (memory instructions)
}

// Instruction flag bits shared by the core handlers.
const (
	FlagSat   uint16 = 1 << iota // .sat
	FlagFtz                      // .ftz: subnormal f32/f16 operands and results are signed zeros
	FlagHi                       // .hi
	FlagWide                     // .wide
	FlagCC                       // .cc (carry out)
	FlagUseCC                    // addc/subc (carry in)
	FlagNeg                      // negated predicate operand / .neg
	FlagUni                      // .uni
	FlagShift                    // shift variant
	FlagX                        // handler-specific
	FlagRelu                     // .relu of fma (a negative result is +0)
)

// Program is a kernel lowered once into flat arrays (issue 4): the
// kernel's instructions followed by those of every .func it calls.
type Program struct {
	File   string
	Kernel string
	Insts  []Inst

	numSlots int           // register slots per warp (each 32 lanes wide)
	consts   []constSlot   // slots holding immediates and fixed addresses
	specials []specialSlot // slots whose value depends on the CTA or lane

	localFrame   int // bytes of .local and .param::func memory per thread, the recursion stack included
	stackBase    int // offset of the stack (recursion, alloca) in the local frame
	usesAlloca   bool
	usesHeap     bool        // calls malloc or free (heap.go)
	sharedStatic int         // bytes of static .shared memory per CTA
	sharedVars   []sharedVar // the static .shared variables, by offset (race.go names them in reports)
	sharedAlign  int
	Params       []Param // kernel parameters in order
	paramSize    int
	Explicit     bool   // .explicitcluster or cluster dims given by directive
	reqCluster   [3]int // .reqnctapercluster, zero when absent
	reqNTID      [3]int // .reqntid, zero when absent
	maxNTID      int    // product of .maxntid, zero when absent
	// reservedSmem is set when the kernel reads %reserved_smem_offset_*:
	// each CTA then has reservedSmemBytes after its own shared memory.
	reservedSmem bool

	funcTable []calleeInfo // functions whose address is taken, by index

	src sourceMap // the CUDA source line of each instruction, from .loc and .file (srcloc.go)

	globals []*Region // module .global variables with their initial bytes
	konsts  []*Region // module .const variables
	nextGlb uint64
	layout  Layout // where the module variables start
}

// Param describes one kernel parameter.
type Param struct {
	Name   string
	Type   Type
	Size   int
	Align  int
	Offset int  // in the parameter buffer
	Ptr    bool // declared .ptr
}

type constSlot struct {
	slot int32
	val  uint64
}

// specialKind selects how a per-CTA slot is filled.
type specialKind uint8

const (
	spTid specialKind = iota
	spNtid
	spCtaid
	spNctaid
	spLaneid
	spWarpid
	spNwarpid
	spClusterid
	spNclusterid
	spClusterCtaid
	spClusterNctaid
	spClusterCtarank
	spClusterNctarank
	spIsExplicitCluster
	spSmid
	spNsmid
	spGridid
	spLanemaskEq
	spLanemaskLt
	spLanemaskLe
	spLanemaskGt
	spLanemaskGe
	spSharedAddr // shared symbol address: (rank+1)<<24 + off
	spDynSmem
	spTotalSmem
	spClock
	spEnvreg // %envreg<off>
	spReservedBegin
	spReservedEnd
	spReservedCap
	spReserved0
	spReserved1
)

type specialSlot struct {
	slot int32
	kind specialKind
	comp int // 0..3 for x, y, z, w
	off  uint64
}

// DecodeFunc lowers one instruction whose opcode was registered with
// RegisterOpcode. It fills out (Exec and the operand fields); out.Guard,
// out.Pos and out.Opcode are already set. It returns an error made with
// d.Errorf for input it cannot emulate.
type DecodeFunc func(d *Decoder, in *ast.Instruction, out *Inst) error

var decoders = map[string]DecodeFunc{}

// RegisterOpcode makes the decoder lower instructions whose Opcode (the
// text before the first dot) is op with fn. It is the extension point for
// instruction families implemented in other files of this package (or by
// packages that wrap it): call it from an init function. Registering an
// opcode twice replaces the earlier decoder, so a richer implementation can
// take over an opcode from the core.
func RegisterOpcode(op string, fn DecodeFunc) { decoders[op] = fn }

type variant struct {
	qual isa.Qual
	fn   DecodeFunc
}

var variants = map[string][]variant{}

// RegisterVariant makes instructions with opcode op that carry qualifier
// qual (".async" for st.async, ".bulk" for st.bulk) decode with fn instead
// of the opcode's main decoder. Later registrations are tried first.
func RegisterVariant(op string, qual isa.Qual, fn DecodeFunc) {
	variants[op] = append([]variant{{qual, fn}}, variants[op]...)
}

// decoderFor picks the decoder of an instruction.
func decoderFor(in *ast.Instruction, quals []isa.Qual) DecodeFunc {
	for _, v := range variants[in.Opcode] {
		for _, q := range quals {
			if q == v.qual {
				return v.fn
			}
		}
	}
	return decoders[in.Opcode]
}
