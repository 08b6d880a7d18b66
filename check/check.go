// Package check validates a parsed PTX module against the instruction
// tables of package isa: qualifier legality, operand shapes and types,
// state spaces, and PTX ISA version and target gating.
//
// Where the ISA pages and NVIDIA ptxas 12.5 disagree for PTX ISA 8.5 and
// older, the checker follows ptxas (see docs/ptxas-differences.md); the
// differential test in this package compares the two per instruction.
package check

import (
	"fmt"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/resolve"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Config overrides what the module declares.
type Config struct {
	Target string // e.g. "sm_90a"; "" uses the module's .target
	PTX    string // e.g. "8.5"; "" uses the module's .version

	// Ptxas names the ptxas whose verdicts the validator follows where the
	// pages and ptxas disagree: "12.5" or "13.0". "" follows ptxas 12.5 up
	// to PTX ISA 8.5 and ptxas 13.0 from 8.6 on (the versions each knows).
	Ptxas string

	// Strict reports the forms ptxas accepts against the pages as errors
	// instead of warnings.
	Strict bool

	// Separate checks the module as separately compiled code (ptxas -c):
	// functions it declares may be defined in another module.
	Separate bool
}

// Validate reports whether the overrides are well formed.
func (c Config) Validate() error {
	if c.Target != "" {
		if _, err := isa.ParseTarget(c.Target); err != nil {
			return err
		}
	}
	if c.PTX != "" {
		if _, err := isa.ParseVersion(c.PTX); err != nil {
			return err
		}
	}
	if c.Ptxas != "" && c.Ptxas != "12.5" && c.Ptxas != "13.0" {
		return fmt.Errorf("unknown ptxas version %q (want 12.5 or 13.0)", c.Ptxas)
	}
	return nil
}

// Module resolves and validates m and returns its diagnostics, name
// resolution's (package resolve) and the validator's, sorted by position.
// It assumes m parsed without errors; it never panics on a partial tree.
// A function whose names do not all resolve is not validated (its
// resolution errors are reported), as in `ptxkit check`.
//
// Module is a Checker fed the whole module, except that the header
// directives (.version, .target, .address_size) take effect for the whole
// module wherever they are written (a Checker fed in source order sees
// them only from where they are written; real modules put them first,
// and then both agree).
func Module(m *ast.Module, cfg Config) diag.List {
	_, l := module(m, cfg, false)
	return l
}

// ModuleInfo is Module that also returns the resolution of m with every
// name use recorded (resolve.Info), for callers that go on to read it:
// the names are resolved once, for the validator and for them.
func ModuleInfo(m *ast.Module, cfg Config) (*resolve.Info, diag.List) {
	return module(m, cfg, true)
}

// Validate is Module without name resolution's verdict: every function is
// validated, names that do not resolve are passed over, and only the
// validator's diagnostics are returned. It is for fragments whose operands
// are placeholders (ptxkit explain wraps one instruction in a kernel that
// declares nothing).
func Validate(m *ast.Module, cfg Config) diag.List {
	k := NewChecker(m.Filename, cfg)
	k.lenient = true
	return k.module(m)
}

func module(m *ast.Module, cfg Config, keepUses bool) (*resolve.Info, diag.List) {
	k := NewChecker(m.Filename, cfg)
	k.res.KeepUses = keepUses
	l := k.module(m)
	return k.res.Info(), l
}

// module feeds m to k: the header directives first, then every statement
// in source order.
func (k *Checker) module(m *ast.Module) diag.List {
	for _, s := range m.Stmts {
		if d, ok := s.(*ast.Directive); ok {
			k.c.directive(d)
		}
	}
	for _, s := range m.Stmts {
		if d, ok := s.(*ast.Directive); ok {
			k.res.Add(d) // the validator has seen it
			k.c.placeDirective(d)
			continue
		}
		k.Add(s)
	}
	k.End()
	return k.Diagnostics()
}

// A Checker resolves and validates a module one top-level statement at a
// time, for callers that parse a module as a stream (parser.Stream). Each
// statement is first resolved (a resolve.Resolver without uses) and then
// validated, reading its operands' declarations from what the resolver
// just found: names are looked up once. A statement or function with
// resolution errors is not validated.
//
// It keeps the module-scope variables and the header (.version, .target,
// .address_size); once Add returns for a function it holds nothing of the
// function's body, whose nodes the caller may then overwrite.
type Checker struct {
	c    checker
	res  *resolve.Resolver
	body bodyState // the function being checked; see stream.go

	// lenient validates statements with resolution errors too, and
	// reports only the validator's diagnostics (Validate).
	lenient bool
}

// NewChecker returns a Checker for the file filename (recorded in every
// diagnostic) with the overrides cfg.
func NewChecker(filename string, cfg Config) *Checker {
	res := resolve.NewResolver(filename)
	res.KeepUses = false
	k := &Checker{c: checker{file: filename, res: res}, res: res}
	k.c.configure(cfg)
	return k
}

// Add resolves and checks one top-level statement: *ast.Directive,
// *ast.VarDecl or *ast.Function. Statements must come in source order.
// .version, .target and .address_size take effect from where they are
// written; the target's validity for the version (PTX ISA §11.1.2) is
// checked when the first variable or function follows them, or by
// Diagnostics.
func (k *Checker) Add(s ast.TopStmt) {
	c := &k.c
	switch s := s.(type) {
	case *ast.Directive:
		k.res.Add(s)
		c.placeDirective(s)
		c.directive(s)
	case *ast.VarDecl:
		c.passHeader(s.Pos())
		before := len(k.res.Diagnostics())
		k.res.Add(s)
		if len(k.res.Diagnostics()) > before && !k.lenient {
			return
		}
		c.requireTarget(s.Pos())
		c.settle()
		c.declType(s)
	case *ast.Function:
		k.beginFunction(s, true)
		if s.Body != nil {
			k.addBlock(s.Body.Stmts)
		}
		k.EndFunction()
	default:
		k.res.Add(s)
	}
}

// addBlock adds the statements of a block of the function being checked.
func (k *Checker) addBlock(stmts []ast.Stmt) {
	for _, s := range stmts {
		if b, ok := s.(*ast.Block); ok {
			k.body.depth++
			k.res.OpenBlockStmts(b.Stmts)
			k.addBlock(b.Stmts)
			k.CloseBlock()
			continue
		}
		k.AddStmt(s)
	}
}

// End reports what only the whole module decides (functions declared but
// never defined); call it once, after the last statement.
func (k *Checker) End() { k.c.end() }

// Diagnostics returns the diagnostics found so far, name resolution's and
// the validator's, sorted by position (stable, as Module sorts them). The
// caller may keep the result and append to it; later calls do not change
// it.
func (k *Checker) Diagnostics() diag.List {
	c := &k.c
	c.settle()
	r := k.res.Diagnostics()
	if k.lenient {
		r = nil
	}
	l := make(diag.List, 0, len(r)+len(c.diags))
	l = append(append(l, r...), c.diags...)
	if !sortedByPosition(l) {
		l.Sort()
	}
	return l
}

// sortedByPosition reports whether l is in the order diag.List.Sort
// gives it.
func sortedByPosition(l diag.List) bool {
	for i := 1; i < len(l); i++ {
		a, b := &l[i-1], &l[i]
		if b.File < a.File || b.File == a.File && b.Pos.Offset < a.Pos.Offset {
			return false
		}
	}
	return true
}

// checker is the state of a Checker. Buffers are reused across
// instructions so that checking allocates little.
type checker struct {
	file    string
	cfg     Config
	version isa.Version
	target  isa.Target
	mod     moduleState // module-level facts; see module.go
	res     *resolve.Resolver
	diags   diag.List

	hdr headerState

	origin originTable // the space of the address a register last received (cvta, mapa); see origin.go

	cache   decodeCache // decoded qualifier sequences; see cache.go
	scratch decoded     // for sequences too long to cache
	counted decoded     // decodeCounted's, uncached
	nops    int         // the operand count decodeOp chooses forms by (-1 or 0: any)
	names   []string
}

// headerState records what the header directives set so far.
type headerState struct {
	fixedVersion bool // Config.PTX overrides .version
	fixedTarget  bool // Config.Target overrides .target
	sawVersion   bool // the first .version was read (later ones are ignored)
	sawTarget    bool // likewise .target
	targetPos    token.Pos
	targetEnd    token.Pos
	pending      bool // version or target changed since the last settle
	checked      bool // the target was checked against the version
	place        headerPlace
	furthest     token.Pos // the furthest statement placed so far
	early        bool      // a header directive came before .version
	addrEarly    token.Pos // an .address_size before any .target
	misplaced    bool      // a directive out of place was reported
}

// configure applies the overrides that are well formed, and reports those
// that are not.
func (c *checker) configure(cfg Config) {
	c.cfg = cfg
	if cfg.PTX != "" {
		if v, err := isa.ParseVersion(cfg.PTX); err == nil {
			c.version, c.hdr.fixedVersion = v, true
		}
	}
	if cfg.Target != "" {
		if t, err := isa.ParseTarget(cfg.Target); err == nil {
			c.target, c.hdr.fixedTarget = t, true
		}
	}
	if err := cfg.Validate(); err != nil {
		c.errorf(token.Pos{}, token.Pos{}, "config", "", "", "%v", err)
	}
	c.hdr.pending = true
}

// header applies cfg and every header directive of m, wherever it is
// written (what Module does).
func (c *checker) header(m *ast.Module, cfg Config) {
	c.configure(cfg)
	for _, s := range m.Stmts {
		if d, ok := s.(*ast.Directive); ok {
			c.directive(d)
		}
	}
	c.settle()
}

// directive reads .version and .target (the first of each) and
// .address_size (PTX ISA §11.1.1-3).
func (c *checker) directive(d *ast.Directive) {
	switch d.Name {
	case ".version":
		if c.hdr.sawVersion {
			return
		}
		c.hdr.sawVersion = true
		if len(d.Args) == 0 {
			return
		}
		v, err := isa.ParseVersion(exprText(d.Args[0]))
		if err != nil {
			c.errorf(d.Args[0].Pos(), d.Args[0].End(), "version", "PTX ISA 11.1.3", "", "%v", err)
			return
		}
		if !c.hdr.fixedVersion {
			c.setHeader(v, c.target)
		}
	case ".target":
		if c.hdr.sawTarget {
			return
		}
		c.hdr.sawTarget = true
		c.hdr.targetPos, c.hdr.targetEnd = d.Pos(), d.End()
		c.hdr.pending = true
		t := c.targetOf(d)
		if !c.hdr.fixedTarget {
			c.setHeader(c.version, t)
		}
	case ".address_size":
		if len(d.Args) > 0 {
			c.addressSize(d)
		}
	}
}

// targetOf returns the highest architecture a .target directive names,
// reporting the malformed ones.
func (c *checker) targetOf(d *ast.Directive) isa.Target {
	var best isa.Target
	for _, a := range d.Args {
		id, ok := a.(*ast.Ident)
		if !ok || !(strings.HasPrefix(id.Name, "sm_") || strings.HasPrefix(id.Name, "compute_")) {
			continue
		}
		t, err := isa.ParseTarget(id.Name)
		if err != nil {
			c.errorf(id.Pos(), id.End(), "target", "PTX ISA 11.1.2", "", "%v", err)
			continue
		}
		if t.SM > best.SM {
			best = t
		}
	}
	return best
}

// setHeader changes the version and target instructions are checked
// against.
func (c *checker) setHeader(v isa.Version, t isa.Target) {
	if v == c.version && t == c.target {
		return
	}
	c.version, c.target = v, t
	c.hdr.pending = true
	c.cache.reset() // gating results depend on both
}

// settle checks, once, that the target exists for the version (PTX ISA
// §11.1.2, Table 59), as soon as both are known and a statement other
// than a directive follows.
func (c *checker) settle() {
	if !c.hdr.pending {
		return
	}
	c.hdr.pending = false
	if c.hdr.checked || c.target.SM == 0 || c.version == 0 {
		return
	}
	c.hdr.checked = true
	if err := isa.TargetValid(c.target, c.version); err != nil {
		since, _ := isa.TargetSince(c.target)
		c.errorf(c.hdr.targetPos, c.hdr.targetEnd, "target-version", "PTX ISA 11.1.2, Table 59", "raise .version to "+since.String(), "%v", err)
	}
}

func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.FloatLit:
		return e.Text
	case *ast.IntLit:
		return e.Text
	case *ast.Ident:
		return e.Name
	}
	return ""
}

func (c *checker) errorf(pos, end token.Pos, rule, spec, fix, format string, args ...any) {
	c.diags.Add(diag.Diagnostic{File: c.file, Pos: pos, End: end, Severity: diag.Error, Rule: rule,
		Message: fmt.Sprintf(format, args...), Spec: spec, Fix: fix})
}

func (c *checker) warnf(pos, end token.Pos, rule, spec, fix, format string, args ...any) {
	c.diags.Add(diag.Diagnostic{File: c.file, Pos: pos, End: end, Severity: diag.Warning, Rule: rule,
		Message: fmt.Sprintf(format, args...), Spec: spec, Fix: fix})
}

// beginFunction prepares checking the body of fn: its
// performance-tuning directives.
func (c *checker) beginFunction(fn *ast.Function) {
	c.origin.reset()
	for _, d := range fn.Perf {
		c.perfDirective(d)
		c.perfVersion(d)
	}
	for _, d := range fn.Params {
		c.hiddenParam(d)
	}
}

// hiddenParam checks a parameter written ".hidden .param", which nvcc 13
// writes for kernel parameters the program does not name: ptxas 12.5 (PTX
// ISA 8.5) does not know it ("Parsing error near '.hidden'"), so it needs
// a newer version (docs/ptxas-differences.md).
func (c *checker) hiddenParam(d *ast.VarDecl) {
	if len(d.Linkage) == 0 || d.Linkage[0] != ".hidden" {
		return
	}
	end := d.Pos().Advance(".hidden")
	if isa.LookupQual(d.Space) != isa.QParam {
		c.errorf(d.Pos(), end, "syntax", "PTX ISA 5.1.6 (Parameter State Space)", "remove .hidden",
			".hidden is written only before .param")
		return
	}
	if need := isa.V(8, 6); c.version != 0 && c.version < need {
		c.errorf(d.Pos(), end, "ptx-version", "PTX ISA 5.1.6 (Parameter State Space)", "raise .version to "+need.String(),
			".hidden .param requires PTX ISA %s (this file declares %s)", need, c.version)
	}
}

// endFunction empties the origin table.
func (c *checker) endFunction() {
	c.origin.reset()
	clear(c.names)
}

// lookup returns the register, variable or parameter that the name use e
// (an *ast.Reg or *ast.Ident of the instruction being checked) refers to,
// as the resolver found it; nil for anything else (an undeclared name,
// which resolution reports, a special register, a label or function).
func (c *checker) lookup(e ast.Expr) *resolve.Symbol {
	s := c.res.Resolved(e)
	if s == nil || s.Kind > resolve.Param {
		return nil
	}
	return s
}

// declared returns the symbol the resolver gave declaration d, or nil.
func (c *checker) declared(d *ast.VarDecl) *resolve.Symbol {
	if d.Name == nil {
		return nil
	}
	return c.res.Resolved(d.Name)
}

// isReg reports whether s is a register (.reg or .sreg declaration).
func isReg(s *resolve.Symbol) bool { return s.Kind == resolve.Register }

// perfDirective checks the values of a function directive: ptxas 12.5
// requires positive values for those isa marks Positive (PTX ISA 11.4).
func (c *checker) perfDirective(d *ast.Directive) {
	if fd := isa.LookupFuncDirective(d.Name); fd == nil || !fd.Positive {
		return
	}
	for _, a := range d.Args {
		if lit, ok := a.(*ast.IntLit); ok && lit.Value == 0 {
			c.errorf(a.Pos(), a.End(), "perf-directive-value", "PTX ISA 11.4 (performance-tuning directives)",
				"give a positive value or remove the directive", "%s needs positive values, not 0", d.Name)
		}
	}
}

// declType gates the type of a declaration: .b128 needs PTX ISA 8.3 and
// sm_70 (PTX ISA 5.2.1, Table 9).
func (c *checker) declType(d *ast.VarDecl) {
	c.texSpace(d) // check/directives.go
	t := isa.QNone
	if sym := c.declared(d); sym != nil { // nil in Validate's lenient mode
		t = sym.ElemType
	} else {
		t = isa.TypeByName(d.Type)
	}
	if t != isa.QB128 {
		return
	}
	const spec = "PTX ISA 5.2.1 (Fundamental Types)"
	pos, end := d.Pos(), d.End()
	if c.version != 0 && c.version < isa.V(8, 3) {
		c.errorf(pos, end, "ptx-version", spec, "raise .version to 8.3", "type .b128 requires PTX ISA 8.3 (this file declares %s)", c.version)
	}
	if c.target.SM != 0 && c.target.SM < 70 {
		c.errorf(pos, end, "target", spec, "compile for sm_70", "type .b128 requires sm_70 or higher (target is %s)", c.target)
	}
}

// instruction checks one instruction against its table (the store
// family) or against the forms of its opcode (isa.DecodeOp); the decoding
// of an opcode and qualifier sequence is cached (cache.go).
func (c *checker) instruction(in *ast.Instruction) {
	if in.Guard != nil {
		c.guardSpecial(in.Guard)
	}
	d := c.decode(in)
	if d.desc == nil && !operandsFit(d.op.Form, len(in.Operands)) {
		d = c.decodeCounted(in)
	}
	if d.video != isa.NotVideo || c.res.HasSelector() {
		c.videoOperands(in, d) // check/video.go: operand selectors
	}
	if d.desc == nil {
		c.other(in, d)
		return
	}
	c.reportProbs(in, d.probs)
	c.operands(in, d)
}

// other handles instructions without a store table: the problems of
// their form and family gate, their operands, the async families' rules,
// and the address spaces cvta and mapa give registers (for the space
// warnings).
func (c *checker) other(in *ast.Instruction, d *decoded) {
	c.trackOrigin(in, d)
	c.reportProbs(in, d.probs)
	c.formOperands(in, d)
	c.cvtNarrowingDst(in, d)
	c.asyncRules(in)   // check/async.go: mbarrier, cp.async, red.async
	c.tensorRules(in)  // check/tensor.go: wgmma and mma.sp immediates
	c.tmaRules(in)     // check/tma.go: the operands of the tensor copies
	c.textureRules(in) // check/texture.go: register handles
	if in.Opcode == "call" {
		c.callArgs(in) // check/call.go
	}
}

// cvtNarrowing reports whether od is cvt.{rz,rm,rp}.ftz.f32.f64, whose
// destination cvtNarrowingDst checks; decided once per decoding.
func cvtNarrowing(od *isa.OpDecode) bool {
	return od.Form != nil && od.Form.Opcode == "cvt" && od.Types[0] == isa.QF32 && od.Types[1] == isa.QF64 &&
		od.Has(isa.QFtz) && (od.Has(isa.QRz) || od.Has(isa.QRm) || od.Has(isa.QRp))
}

// cvtNarrowingDst is a rule of ptxas 12.5 the manual does not state:
// cvt.{rz,rm,rp}.ftz.f32.f64 rejects a 64-bit destination register
// ("Arguments mismatch"), which cvt otherwise accepts for .f32 (and with
// .rn, or without .ftz). Found by the differential test, pinned down with
// ptxas (docs/ptxas-differences.md).
func (c *checker) cvtNarrowingDst(in *ast.Instruction, d *decoded) {
	if !d.cvtNarrowing || len(in.Operands) == 0 {
		return
	}
	e := in.Operands[0]
	if sym := c.lookup(e); sym != nil && isReg(sym) && sym.ElemType.Bits() == 64 {
		c.errorf(e.Pos(), e.End(), "operand-type", secTypes, "use a 32-bit destination register",
			"cvt with .ftz, a directed rounding and .f32.f64 needs a 32-bit destination, not %s (%s)", ast.NameOf(e), sym.ElemType)
	}
}
