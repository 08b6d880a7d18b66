package sass

// Op is an instruction opcode.
type Op uint8

// Opcodes. STS and STL are the subject of the seed page; STG, ST and STAS
// appear in ptxas output for the other PTX store forms (ENCODING.md T4).
const (
	OpInvalid Op = iota
	STS          // store within the shared window
	STL          // store within the local window
	STG          // store to global memory
	ST           // generic store
	STAS         // asynchronous store to distributed shared memory (SM90)
	NOP          // padding in raw binaries
)

var opNames = [...]string{OpInvalid: "INVALID", STS: "STS", STL: "STL", STG: "STG", ST: "ST", STAS: "STAS", NOP: "NOP"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "INVALID"
}

// RZ is the zero register; PT is the true predicate; URZ the zero uniform
// register.
const (
	RZ  = 255
	PT  = 7
	URZ = 255
)

// Size is the 3-bit .sz field: the access width and, for 8/16-bit stores,
// the nominal signedness. Size32 is the default and is never printed.
type Size uint8

// Size values as encoded (ENCODING.md T1, T3).
const (
	U8 Size = iota
	S8
	U16
	S16
	Size32
	Size64
	Size128
	Size7 // reserved value, printed INVALIDSIZE7 (Maxwell) or INVALID7
)

// Bytes returns the access size in bytes (4 for the reserved value 7).
func (s Size) Bytes() int {
	switch s {
	case U8, S8:
		return 1
	case U16, S16:
		return 2
	case Size64:
		return 8
	case Size128:
		return 16
	}
	return 4
}

// Regs returns how many consecutive data registers the store reads.
func (s Size) Regs() int {
	switch s {
	case Size64:
		return 2
	case Size128:
		return 4
	}
	return 1
}

// Sched holds an instruction's scheduling controls: the Maxwell control word
// slot (ENCODING.md T2) or the Turing+ bits [125:105] (T3).
//
// In the seed page's notation these are {&req_6} (Req), {&rdN} (Rd) and
// {?sched} (Stall and Yield); stores never set a write barrier ({&wrN}).
type Sched struct {
	Stall uint8 // 0-15 cycles before the next instruction issues
	Yield uint8 // 1 = no yield hint (the "trans" encodings); 0 = yield
	Wr    uint8 // write scoreboard, 7 = none
	Rd    uint8 // read scoreboard released when operands are read, 7 = none
	Req   uint8 // 6-bit wait mask over scoreboards 0-5
	Reuse uint8 // operand reuse flags (ignored by stores)
}

// DefaultSched is the neutral slot 0x7f1 that ptxas commonly emits: stall 1,
// no yield, no scoreboards.
var DefaultSched = Sched{Stall: 1, Yield: 1, Wr: 7, Rd: 7}

// Inst is one decoded SASS store instruction.
//
// Off is the address offset as a value: signed (ImmS24, or ImmS32 for the
// generic ST) when a base register is used, the unsigned absolute address
// (ImmU24) when Ra is RZ in the plain [Ra+imm] form.
type Inst struct {
	Op      Op
	Pred    uint8 // guard predicate P0-P6, 7 = PT
	PredNeg bool  // @!P
	Size    Size
	Ra      uint8 // address register, RZ for an absolute address
	Rb      uint8 // first data register
	Off     int64

	Cop   uint8 // Maxwell: STL .cop (WB=0, CG, CS, WT) or STG/ST cache (none=0, CG, CS, WT)
	E     bool  // STG/ST .E: 64-bit address {Ra+1, Ra}
	PredC uint8 // Maxwell ST third operand predicate

	UR     bool  // Turing+: address has a uniform register term ([Ra+URc+imm])
	URc    uint8 // uniform register, URZ = 255 (the field holds 63 up to SM90)
	Scale  uint8 // Turing+ STS: 0, .X4, .X8, .X16
	Policy uint8 // Turing+ STL/STG/ST L1 policy: EF=0, default=1, EL, LU, EU, NA, 6, 7
	Sem    uint8 // Turing+ STG/ST memory semantics and scope (semNames; stasSemNames for STAS)
	Desc   bool  // Turing+ STG/ST: desc[URc][Ra.64+imm]; SM80+ STL: desc[URc][Ra+imm]
	Ra64   bool  // Turing+ STG/ST/STAS: Ra is a 64-bit pair (.64), else .U32
	// DescShown is bit 101 of SM80-SM89 STG/ST/STL: nvdisasm prints
	// desc[URc] only when it is set (SM90 always prints it).
	DescShown bool
	PM        uint8 // Turing+ ?PMn performance-monitor predicate

	Sched Sched
}

// DefaultPolicy is the Turing+ L1 policy value that is not printed.
const DefaultPolicy = 1

// DefaultDesc is the descriptor register of a desc[] address that nvdisasm
// does not print (SM80-SM89 STG/ST): ptxas always uses UR4 there, so the
// parser assumes it when the text names none.
const DefaultDesc = 4

// NewInst returns an instruction with the defaults a text line without
// modifiers means: unguarded, 32-bit, default policy and schedule.
func NewInst(op Op) Inst {
	return Inst{Op: op, Pred: PT, Size: Size32, Ra: RZ, Rb: RZ, URc: URZ, Policy: DefaultPolicy, Sched: DefaultSched, PredC: PT}
}
