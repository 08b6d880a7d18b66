package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// symKind says what a register or variable declaration stores.
type symKind uint8

const (
	symReg symKind = iota
	symVar
)

// symbol is the storage of a declared register or variable: the
// decoder's own record for one declaration (or one element of a "%r<N>"
// declaration), found through resolve's binding of each name use.
type symbol struct {
	kind  symKind
	slot  int32 // symReg: slot base (slot*32)
	typ   Type
	vec   int
	space Space  // symVar
	addr  uint64 // symVar: address in its space (shared: offset in the CTA's shared memory)
	size  int
	// frame is set for variables of a recursive function: addr is then
	// an offset in its activation frame (recursion.go); addrSlot-1 is the
	// register holding the address as a value, once one is needed.
	frame    *frameInfo
	addrSlot int32
	// elems holds the registers %r0..%rN-1 of a "%r<N>" declaration.
	elems []symbol
}

// funcInfo is a .func or .entry being lowered.
type funcInfo struct {
	fn      *ast.Function
	start   int32
	params  []*symbol
	returns []*symbol
	entry   bool
	frame   *frameInfo // activation frame of a recursive function, nil otherwise
}

// labelFixup is a branch target to fill in once every function is
// lowered: field Target of instruction inst, or table[slot].
type labelFixup struct {
	table []int32 // when set, the resolved pc goes to table[slot] instead of Target
	slot  int
	inst  int
	label *ast.Label // the label the target names; nil when it names none
	name  string     // the target's name, for a report
	node  ast.Expr   // the target operand
}

// Limits on what one program may need, so that any input runs in bounded
// memory. Hardware allows 512 KiB of local memory per thread. A register
// slot costs 256 bytes per warp: 2^20 slots (256 MiB a warp) is far above
// what compilers emit for the largest unrolled kernels (~10^5), and a
// launch whose warps together need more than the state bound of a launch
// (maxLaunchBytes) is refused when it is configured.
const (
	maxRegisterSlots = 1 << 20
	maxLocalBytes    = 512 << 10
	maxModuleBytes   = 256 << 20
)

// Decoder lowers a checked module into a Program. Extension decoders
// (RegisterOpcode) receive it to resolve operands.
//
// Names are resolved once, by package resolve: the decoder maps each
// declaration that a use is bound to (resolve.Info) to its storage, and
// each label and function to its code.
type Decoder struct {
	prog          *Program
	loc           srcLoc // the last .loc of the function being lowered (srcloc.go)
	errs          diag.List
	tooLong       bool // maxProgramInsts was reached and reported
	info          *resolve.Info
	useAt         int                      // index in info.Uses of the last use looked up
	vars          map[*ast.VarDecl]*symbol // storage of the declarations lowered so far
	tmpRegs       map[*ast.Reg]*symbol     // registers the decoder introduces (regimm.go)
	regImms       int                      // register-plus-immediate operands lowered so far (regimm.go)
	videoOperands bool                     // a video decoder has read the operands' selectors (ops_video.go)
	aliased       map[*resolve.Symbol]*ast.Function
	lowered       map[*ast.Function]*funcInfo
	queue         []*funcInfo
	cur           *funcInfo
	labels        map[*ast.Label]int32 // pc of each label of the lowered functions
	fixups        []labelFixup
	consts        map[uint64]int32
	specials      map[specialSlot]int32
	shared        map[*ast.VarDecl]uint64
	addrOf        map[*ast.Function]int       // function -> index in Program.funcTable
	kernelAddrOf  map[string]int              // kernel whose address is taken -> index in kernelWindow
	tables        map[*ast.Label][]*ast.Ident // .branchtargets lists by label
	nslots        int
	colors        *regColoring // the slot sharing of the function being lowered (regalloc.go)
	colorBase     int32        // the first slot of its colors
	inst          int
	rec           map[*ast.Function]bool // functions in a call cycle
	isa           isaDecoded             // the instruction being lowered, as isa decodes it
	sm            int                    // the module's .target sm_XX (0 when it names none)
	wgmma         bool                   // the module issues wgmma.mma_async (wgmma_flight.go)
}

// Decode lowers kernel (the first .entry when kernel is "") of m, and
// every function it calls, into a Program. It resolves the names of m
// first; DecodeResolved takes a resolution already made. It reports
// constructs the emulator cannot run as diagnostics with rule
// "emu-unsupported" and malformed input it did not expect (m should have
// been checked) with rule "emu-decode".
func Decode(m *ast.Module, kernel string) (*Program, diag.List) {
	return DecodeResolved(m, nil, kernel)
}

// DecodeResolved is Decode with the names of m already resolved: info is
// resolve.Module(m)'s result (nil resolves them here). Names that info
// leaves unresolved are reported as the operands that use them.
func DecodeResolved(m *ast.Module, info *resolve.Info, kernel string) (*Program, diag.List) {
	return decodeWith(m, info, kernel, Layout{})
}

// decodeWith is DecodeResolved with the module variables placed by layout
// (zero fields: the default bases).
func decodeWith(m *ast.Module, info *resolve.Info, kernel string, layout Layout) (*Program, diag.List) {
	if layout.Global == 0 {
		layout.Global = globalBase
	}
	if layout.Const == 0 {
		layout.Const = constBase
	}
	if info == nil {
		info, _ = resolve.Module(m)
	}
	d := &Decoder{
		prog:         &Program{File: m.Filename, layout: layout},
		info:         info,
		vars:         map[*ast.VarDecl]*symbol{},
		aliased:      map[*resolve.Symbol]*ast.Function{},
		lowered:      map[*ast.Function]*funcInfo{},
		labels:       map[*ast.Label]int32{},
		consts:       map[uint64]int32{},
		specials:     map[specialSlot]int32{},
		shared:       map[*ast.VarDecl]uint64{},
		addrOf:       map[*ast.Function]int{},
		kernelAddrOf: map[string]int{},
		tables:       map[*ast.Label][]*ast.Ident{},
		sm:           targetSM(m),
		wgmma:        hasWgmmaMMA(m),
	}
	entry, entries := entryOf(m, kernel)
	if entry == nil {
		if kernel == "" {
			d.errorf(m, "emu-decode", "the module defines no .entry kernel")
		} else {
			d.errorf(m, "emu-decode", "no .entry kernel named %q (kernels: %s)", kernel, strings.Join(entries, ", "))
		}
		return nil, d.errs
	}
	d.prog.Kernel = entry.Name.Name
	d.aliases(m)
	d.rec = recursiveFuncs(m, d.funcOf)
	d.enqueue(entry).entry = true
	d.entryParams(entry)
	d.moduleVars(m)
	d.sharedVars(m, d.reachFrom(m, entry))
	d.sourceFiles(m)
	for len(d.queue) > 0 {
		f := d.queue[0]
		d.queue = d.queue[1:]
		d.lowerFunc(f)
	}
	d.resolveFixups()
	d.resolveCalls()
	d.layoutStack()
	d.buildFuncTable()
	d.finish()
	if d.errs.HasErrors() {
		return nil, d.errs
	}
	return d.prog, d.errs
}

// entryOf returns the first .entry of m with a body called kernel (any
// name when kernel is ""), and the names of all of them.
func entryOf(m *ast.Module, kernel string) (entry *ast.Function, entries []string) {
	for _, s := range m.Stmts {
		if f, ok := s.(*ast.Function); ok && f.Name != nil && f.Kind == ".entry" && f.Body != nil {
			entries = append(entries, f.Name.Name)
			if entry == nil && (kernel == "" || f.Name.Name == kernel) {
				entry = f
			}
		}
	}
	return entry, entries
}

func (d *Decoder) errorf(n ast.Node, rule, format string, args ...any) {
	d.errs.Errorf(d.prog.File, n.Pos(), n.End(), rule, format, args...)
}

// Errorf returns an error positioned at n for an extension decoder to
// return; the decoder records it as an "emu-unsupported" diagnostic.
func (d *Decoder) Errorf(n ast.Node, format string, args ...any) error {
	return &decodeError{node: n, msg: fmt.Sprintf(format, args...)}
}

type decodeError struct {
	node ast.Node
	msg  string
}

func (e *decodeError) Error() string { return e.msg }

// Program returns the program being built (for extension decoders that
// need its layout).
func (d *Decoder) Program() *Program { return d.prog }

// NewSlot allocates a scratch register slot and returns its base.
func (d *Decoder) NewSlot() int32 {
	d.nslots++
	return int32(d.nslots-1) * 32
}

// Const returns the slot base of a slot holding v in every lane.
func (d *Decoder) Const(v uint64) int32 {
	if s, ok := d.consts[v]; ok {
		return s
	}
	s := d.NewSlot()
	d.consts[v] = s
	d.prog.consts = append(d.prog.consts, constSlot{slot: s, val: v})
	return s
}

func (d *Decoder) special(k specialKind, comp int, off uint64) int32 {
	key := specialSlot{kind: k, comp: comp, off: off}
	if s, ok := d.specials[key]; ok {
		return s
	}
	s := d.NewSlot()
	d.specials[key] = s
	key.slot = s
	d.prog.specials = append(d.prog.specials, key)
	return s
}

// finish records the slot count and enforces the size limits. Register,
// constant and special slots are numbered in order of appearance; a warp
// zeroes all of them when it starts a CTA and refills the constants and
// specials (Warp.start).
func (d *Decoder) finish() {
	d.prog.numSlots = d.nslots
	pos := d.prog.Insts
	at := func() (p, e token.Pos) {
		if len(pos) > 0 {
			return pos[0].Pos, pos[0].Pos
		}
		return
	}
	if d.nslots > maxRegisterSlots {
		p, e := at()
		d.errs.Errorf(d.prog.File, p, e, "emu-unsupported", "the kernel needs %d register slots; the emulator supports %d", d.nslots, maxRegisterSlots)
	}
	if d.prog.localFrame > maxLocalBytes {
		p, e := at()
		d.errs.Errorf(d.prog.File, p, e, "emu-unsupported", "the kernel needs %d bytes of local memory per thread; the emulator supports %d", d.prog.localFrame, maxLocalBytes)
	}
	if d.prog.sharedStatic > maxSharedBytes {
		p, e := at()
		d.errs.Errorf(d.prog.File, p, e, "emu-unsupported", "%d bytes of static shared memory (at most %d)", d.prog.sharedStatic, maxSharedBytes)
	}
	glb := 0
	for _, r := range d.prog.globals {
		glb += len(r.Data)
	}
	for _, r := range d.prog.konsts {
		glb += len(r.Data)
	}
	if glb > maxModuleBytes {
		p, e := at()
		d.errs.Errorf(d.prog.File, p, e, "emu-unsupported", "module variables take %d bytes; the emulator supports %d", glb, maxModuleBytes)
	}
	if d.prog.sharedAlign == 0 {
		d.prog.sharedAlign = 1
	}
}

// moduleVars allocates module-scope .global and .const variables.
func (d *Decoder) moduleVars(m *ast.Module) {
	var glb, cst regionSet
	for _, s := range m.Stmts {
		v, ok := s.(*ast.VarDecl)
		if !ok {
			continue
		}
		for _, vd := range declNames(v) {
			sp, ok := parseSpace(vd.Space)
			if !ok || (sp != SpaceGlobal && sp != SpaceConst) || vd.Name == nil {
				continue
			}
			size, elem, err := d.varSize(vd)
			if err != nil {
				d.errorf(vd, "emu-decode", "%v", err)
				continue
			}
			align := uint64(max(vd.Align, int64(elem)))
			var r *Region
			if sp == SpaceGlobal {
				r = glb.alloc(vd.Name.Name, size, align, SpaceGlobal, d.prog.layout.Global)
				d.prog.globals = append(d.prog.globals, r)
			} else {
				r = cst.alloc(vd.Name.Name, size, align, SpaceConst, d.prog.layout.Const)
				d.prog.konsts = append(d.prog.konsts, r)
			}
			d.vars[vd] = &symbol{kind: symVar, space: sp, addr: r.Base, size: size}
			if vd.Init != nil {
				d.initVar(vd, r.Data)
			}
		}
	}
	d.prog.nextGlb = glb.next
	if d.prog.nextGlb == 0 {
		d.prog.nextGlb = globalBase
	}
}

// declNames expands "a, b, c" declarations.
func declNames(v *ast.VarDecl) []*ast.VarDecl {
	out := []*ast.VarDecl{v}
	for _, x := range v.ExtraNames {
		out = append(out, x)
	}
	return out
}

// varSize returns a variable's size in bytes and its element alignment.
func (d *Decoder) varSize(v *ast.VarDecl) (int, int, error) {
	t, ok := ParseType(v.Type)
	if !ok {
		return 0, 0, fmt.Errorf("variable %s has unknown type %q", v.Name.Name, v.Type)
	}
	elem := t.Size() * max(1, v.Vector)
	n := int64(elem)
	for _, dim := range v.Dims {
		if dim < 0 {
			if v.Init != nil {
				if l, ok := v.Init.(*ast.InitList); ok {
					dim = int64(len(l.Elems))
				}
			}
			if dim < 0 {
				dim = 0
			}
		}
		if dim > 0 && n > maxModuleBytes/dim {
			return 0, 0, fmt.Errorf("variable %s is too large", v.Name.Name)
		}
		n *= dim
		if n > maxModuleBytes || n < 0 {
			return 0, 0, fmt.Errorf("variable %s is too large", v.Name.Name)
		}
	}
	return int(n), elem, nil
}

// initVar writes a variable's initializer into data.
func (d *Decoder) initVar(v *ast.VarDecl, data []byte) {
	t, _ := ParseType(v.Type)
	var flat []ast.Expr
	var walk func(e ast.Expr)
	walk = func(e ast.Expr) {
		if l, ok := e.(*ast.InitList); ok {
			for _, x := range l.Elems {
				walk(x)
			}
			return
		}
		flat = append(flat, e)
	}
	walk(v.Init)
	sz := t.Size()
	for i, e := range flat {
		if (i+1)*sz > len(data) {
			d.errorf(e, "emu-decode", "too many initializers for %s", v.Name.Name)
			return
		}
		val, ok := d.constValue(e, t)
		if !ok {
			d.errorf(e, "emu-unsupported", "initializer the emulator cannot evaluate")
			return
		}
		putLE(data[i*sz:], val, sz)
	}
}

// constValue evaluates an immediate or initializer element as a value of
// type t: integers, floats (converted to t), symbol addresses and
// generic(sym).
func (d *Decoder) constValue(e ast.Expr, t Type) (uint64, bool) {
	switch x := e.(type) {
	case *ast.FloatLit:
		f := x.Value
		if x.Hex {
			if x.Single {
				f = float64(math.Float32frombits(uint32(x.Bits)))
			} else {
				f = math.Float64frombits(x.Bits)
			}
			if t.Size() == 4 && x.Single || t.Size() == 8 && !x.Single && !t.Float() {
				return x.Bits, true
			}
		}
		if t.Float() {
			return floatBits(t, f, RoundNearest), true
		}
		return uint64(int64(f)), true
	case *ast.UnaryExpr:
		if x.Op == "-" {
			if fl, ok := x.X.(*ast.FloatLit); ok && t.Float() {
				v, _ := d.constValue(fl, t)
				return v ^ 1<<(uint(t.Bits())-1), true
			}
		}
	case *ast.Ident:
		if s := d.lookup(x); s != nil && s.kind == symVar {
			return s.addr, true
		}
		if c := d.symbolOf(x); c != nil && c.Kind == resolve.Constant {
			return uint64(c.Value), true
		}
		if a, ok := d.funcAddr(d.funcOf(x)); ok {
			return a, true
		}
		if a, ok := d.kernelAddr(d.funcOf(x)); ok {
			return a, true
		}
		return 0, false
	case *ast.CallExpr:
		if x.Fun == "generic" && len(x.Args) == 1 {
			if id, ok := x.Args[0].(*ast.Ident); ok {
				if s := d.lookup(id); s != nil && s.kind == symVar {
					return genericOf(s), true
				}
			}
		}
		return 0, false
	case *ast.BinaryExpr:
		if id, ok := x.X.(*ast.Ident); ok && (x.Op == "+" || x.Op == "-") {
			base, ok1 := d.constValue(id, t)
			off, ok2 := parser.ConstValue(x.Y)
			if ok1 && ok2 {
				if x.Op == "-" {
					off = -off
				}
				return base + uint64(off), true
			}
		}
		if c, ok := x.X.(*ast.CallExpr); ok && x.Op == "+" {
			base, ok1 := d.constValue(c, t)
			off, ok2 := parser.ConstValue(x.Y)
			if ok1 && ok2 {
				return base + uint64(off), true
			}
		}
	}
	if v, ok := parser.ConstValue(e); ok {
		if t.Float() {
			return floatBits(t, float64(v), RoundNearest), true
		}
		return uint64(v), true
	}
	return 0, false
}

// genericOf returns the generic address of a module variable.
func genericOf(s *symbol) uint64 {
	switch s.space {
	case SpaceConst:
		return constWindow + s.addr
	case SpaceLocal:
		return localWindow + s.addr
	}
	return s.addr
}

func putLE(b []byte, v uint64, n int) {
	switch n {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}

// sharedVars lays out static shared memory: the module-scope .shared
// variables the kernel reaches (r), then those declared inside the bodies
// of the functions it reaches; .extern arrays without a size start after
// them (dynamic shared memory).
func (d *Decoder) sharedVars(m *ast.Module, r reach) {
	var dyn []*ast.VarDecl
	off := uint64(0)
	place := func(v *ast.VarDecl) {
		sp, ok := parseSpace(v.Space)
		if !ok || (sp != SpaceShared && sp != SpaceSharedCluster) || v.Name == nil {
			return
		}
		size, elem, err := d.varSize(v)
		if err != nil {
			d.errorf(v, "emu-decode", "%v", err)
			return
		}
		align := uint64(max(v.Align, int64(elem), 1))
		if int(align) > d.prog.sharedAlign {
			d.prog.sharedAlign = int(align)
		}
		if size == 0 {
			dyn = append(dyn, v)
			return
		}
		off = (off + align - 1) &^ (align - 1)
		d.shared[v] = off
		d.prog.sharedVars = append(d.prog.sharedVars, sharedVar{name: v.Name.Name, off: off, size: uint64(size)})
		off += uint64(size)
	}
	var walk func(stmts []ast.Stmt)
	walk = func(stmts []ast.Stmt) {
		for _, s := range stmts {
			switch x := s.(type) {
			case *ast.VarDecl:
				for _, v := range declNames(x) {
					place(v)
				}
			case *ast.Block:
				walk(x.Stmts)
			}
		}
	}
	for _, s := range m.Stmts {
		switch x := s.(type) {
		case *ast.VarDecl:
			for _, v := range declNames(x) {
				if r.vars[v] || isDynamicShared(v) {
					place(v)
				}
			}
		case *ast.Function:
			if x.Body != nil && r.funcs[x] {
				walk(x.Body.Stmts)
			}
		}
	}
	dynOff := (off + 15) &^ 15
	for _, v := range dyn {
		a := uint64(max(v.Align, 16))
		dynOff = (off + a - 1) &^ (a - 1)
	}
	for _, v := range dyn {
		d.shared[v] = dynOff
	}
	for _, s := range m.Stmts {
		if v, ok := s.(*ast.VarDecl); ok {
			for _, vd := range declNames(v) {
				if o, ok := d.shared[vd]; ok {
					d.vars[vd] = &symbol{kind: symVar, space: SpaceShared, addr: o}
				}
			}
		}
	}
	d.prog.sharedStatic = int(dynOff)
	if len(dyn) == 0 {
		d.prog.sharedStatic = int(off)
	}
}

// isDynamicShared reports whether v is an array without a size (the
// dynamic shared memory of every kernel).
func isDynamicShared(v *ast.VarDecl) bool {
	return slices.Contains(v.Dims, -1)
}

// entryParams lays out the kernel parameter buffer (§5.1.6).
func (d *Decoder) entryParams(f *ast.Function) {
	off := 0
	for _, p := range f.Params {
		t, ok := ParseType(p.Type)
		if !ok || p.Name == nil {
			d.errorf(p, "emu-decode", "parameter with unknown type %q", p.Type)
			continue
		}
		size, elem, _ := d.varSize(p)
		align := max(int(p.Align), elem, 1)
		off = (off + align - 1) &^ (align - 1)
		prm := Param{Name: p.Name.Name, Type: t, Size: size, Align: align, Offset: off}
		for _, a := range p.Attrs {
			if a == ".ptr" {
				prm.Ptr = true
			}
		}
		d.prog.Params = append(d.prog.Params, prm)
		off += size
	}
	d.prog.paramSize = off
	for _, dir := range f.Perf {
		switch dir.Name {
		case ".explicitcluster":
			d.prog.Explicit = true
		case ".reqnctapercluster", ".reqntid", ".maxntid":
			var dims [3]int
			for i, a := range dir.Args {
				if v, ok := parser.ConstValue(a); ok && i < 3 {
					if v < 0 || v > 1<<31-1 {
						d.errorf(a, "emu-decode", "%s dimension %d is out of range (0 to %d)", dir.Name, v, 1<<31-1)
						continue
					}
					dims[i] = int(v)
				}
			}
			for i := range dims {
				if dims[i] == 0 {
					dims[i] = 1
				}
			}
			switch dir.Name {
			case ".reqntid":
				d.prog.reqNTID = dims
			case ".maxntid":
				// Saturate: more than a CTA can hold is no limit at all.
				d.prog.maxNTID = min(dims[0], maxThreadsPerCTA+1) * min(dims[1], maxThreadsPerCTA+1) * min(dims[2], maxThreadsPerCTA+1)
			default:
				d.prog.reqCluster = dims
				d.prog.Explicit = true
			}
		}
	}
}

func (d *Decoder) enqueue(f *ast.Function) *funcInfo {
	if fi := d.lowered[f]; fi != nil {
		return fi
	}
	fi := &funcInfo{fn: f, start: -1}
	d.lowered[f] = fi
	d.queue = append(d.queue, fi)
	return fi
}

// allocLocal reserves n bytes of per-thread local memory.
func (d *Decoder) allocLocal(n int, align int) uint64 {
	align = max(align, 1)
	off := (d.prog.localFrame + align - 1) &^ (align - 1)
	d.prog.localFrame = off + n
	return uint64(off)
}

// Functions whose address is taken get generic addresses in their own
// window (funcWindow + 16*index) so that indirect calls can find them.
const funcWindow = uint64(0x7A) << windowShift

// aliases applies ".alias a, b" directives: a names b's body.
func (d *Decoder) aliases(m *ast.Module) {
	for _, s := range m.Stmts {
		dir, ok := s.(*ast.Directive)
		if !ok || dir.Name != ".alias" || len(dir.Args) != 2 {
			continue
		}
		a := d.symbolOf(dir.Args[0])
		if b := d.funcOf(dir.Args[1]); a != nil && a.Kind == resolve.Function && b != nil {
			d.aliased[a] = b
		}
	}
}

// funcAddr returns the address of the .func f, queueing it for lowering.
func (d *Decoder) funcAddr(f *ast.Function) (uint64, bool) {
	if f == nil || f.Body == nil || f.Kind != ".func" {
		return 0, false
	}
	i, ok := d.addrOf[f]
	if !ok {
		i = len(d.addrOf)
		d.addrOf[f] = i
		d.enqueue(f)
	}
	return funcWindow + 16*uint64(i), true
}

// Kernels whose address is taken (the device runtime's PTX keeps a table
// of its kernels, for launches from device code) get addresses in their
// own window (kernelWindow + 16*index). The emulator launches no kernel
// from device code, so an indirect call through one is a wrong-window
// report like any address that names no function.
const kernelWindow = uint64(0x79) << windowShift

// kernelAddr returns the address of the .entry f.
func (d *Decoder) kernelAddr(f *ast.Function) (uint64, bool) {
	if f == nil || f.Kind != ".entry" || f.Name == nil {
		return 0, false
	}
	i, ok := d.kernelAddrOf[f.Name.Name]
	if !ok {
		i = len(d.kernelAddrOf)
		d.kernelAddrOf[f.Name.Name] = i
	}
	return kernelWindow + 16*uint64(i), true
}

// calleeInfo is what an indirect call needs of its target.
type calleeInfo struct {
	name    string
	start   int32
	params  []*symbol
	returns []*symbol
	frame   *frameInfo
}

func (d *Decoder) buildFuncTable() {
	d.prog.funcTable = make([]calleeInfo, len(d.addrOf))
	for f, i := range d.addrOf {
		fi := d.lowered[f]
		d.prog.funcTable[i] = calleeInfo{name: f.Name.Name, start: fi.start, params: fi.params, returns: fi.returns, frame: fi.frame}
	}
}
