package resolve

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// A Resolver resolves a module one top-level statement at a time, in
// source order, for consumers that see the statements of a module as they
// are parsed (parser.Stream). Feeding it every statement of a module gives
// exactly the Info and diagnostics of Module.
//
// With KeepUses false it keeps no reference into a function's body once
// Add returns for that function: no uses are recorded, and the symbols of
// the function's registers, labels and block-scope variables are dropped
// with its scope, so the caller may overwrite or recycle the body's nodes
// (parser.ReuseBodies). Module-scope variables and function headers (name,
// parameters, return parameters, performance directives) are kept and must
// stay valid.
type Resolver struct {
	// KeepUses records every name use in Info.Uses. NewResolver sets it;
	// clear it before the first Add to resolve in constant memory. It is
	// read at each Add.
	KeepUses bool

	file string
	info *Info
	errs diag.List
	t    table // module, parameter and block scopes
	pt   table // parameter list of a call prototype, reused

	fn         *ast.Function            // function being resolved
	keep       bool                     // KeepUses for the statement being resolved
	regOwner   map[string]*ast.Function // first function declaring each plain register name
	rangeOwner map[string]*ast.Function // first function declaring each "%r<N>" prefix

	modSyms  slab // symbols of module-scope declarations
	bodySyms slab // symbols of function bodies; recycled without KeepUses
	bodyKept bool // bodySyms holds symbols of a function resolved with KeepUses

	body bodyStream // a function body resolved statement by statement; see stream.go

	owned     [256]ownedName // names known to be in regOwner or rangeOwner (noteOwner)
	funcOrder []*Symbol      // the functions in order of first declaration
	pctFuncs  int            // functions whose name begins with '%', like a register's
	stmt      []stmtUse      // the uses of the statement resolved last, for Resolved
	opFrom    int            // where the uses of its operands start in stmt (OperandUse)
	stmtSel   bool           // a register of it carries a video selector (HasSelector)

	lastOff  int32 // offset of the last recorded use
	unsorted bool  // Info.Uses is out of source order (a damaged tree)
}

// NewResolver returns a Resolver for a module read from filename (recorded
// in every diagnostic), with KeepUses set.
func NewResolver(filename string) *Resolver {
	r := &Resolver{
		KeepUses: true,
		file:     filename,
		info: &Info{
			Globals:   make(map[string]*Symbol),
			Functions: make(map[string]*Symbol),
		},
		regOwner:   make(map[string]*ast.Function),
		rangeOwner: make(map[string]*ast.Function),
	}
	r.t.init(true)
	r.pt.init(false)
	return r
}

// Add resolves one top-level statement of the module. Statements must come
// in source order. Like ptxas, names must be declared before they are used:
// a variable's initializer sees only earlier variables, a call only
// earlier (or its own) function declarations.
func (r *Resolver) Add(s ast.TopStmt) {
	r.keep = r.KeepUses
	r.t.cache.invalidate()
	r.stmt = r.stmt[:0]
	switch s := s.(type) {
	case *ast.VarDecl:
		r.resolveInits(s)
		r.declareVar(&r.t, s, nil, NoRole)
	case *ast.Function:
		r.declareFunc(s)
		r.function(s)
	case *ast.Directive:
		if s.Name == ".alias" {
			r.alias(s)
		}
	}
}

// Resolved returns the symbol that the name use n (an *ast.Reg or
// *ast.Ident) of the body statement resolved last refers to, or nil when
// it resolved to nothing (or is not a use of that statement). A phase
// that runs statement by statement behind the resolver reads its
// operands' declarations here instead of looking their names up again;
// with or without KeepUses, it costs a scan of the statement's few uses.
func (r *Resolver) Resolved(n ast.Expr) *Symbol {
	at := spanOf(n)
	if at == nil {
		return nil
	}
	for i := range r.stmt {
		if r.stmt[i].at == at {
			return r.stmt[i].sym
		}
	}
	return nil
}

// alias resolves ".alias falias, f;", which defines falias as f (PTX ISA
// §11.6.x).
func (r *Resolver) alias(d *ast.Directive) {
	r.stmt = r.stmt[:0]
	r.exprs(d.Args, ctxFunction)
	if len(d.Args) > 0 {
		if sym := r.Resolved(d.Args[0]); sym != nil && sym.Kind == Function {
			sym.Aliased = true
		}
	}
}

// Functions returns the functions declared so far, in the order of their
// first declaration (a definition replaces a declaration's Func).
func (r *Resolver) Functions() []*Symbol { return r.funcOrder }

// Diagnostics returns the diagnostics reported so far, in the order
// reported.
func (r *Resolver) Diagnostics() diag.List { return r.errs }

// Info returns the resolution of the statements added so far. Uses holds
// the uses of the statements added while KeepUses was set; Globals and
// Functions are filled in either case.
func (r *Resolver) Info() *Info {
	if r.unsorted {
		// Uses are recorded in source order; keep Symbol's binary search
		// correct even if a damaged tree broke that order.
		uses := r.info.Uses
		sort.SliceStable(uses, func(i, j int) bool { return uses[i].off() < uses[j].off() })
		r.unsorted = false
		r.lastOff = uses[len(uses)-1].off()
	}
	return r.info
}

// use records that n, whose span is at, names sym.
func (r *Resolver) use(n ast.Expr, at *ast.Span, sym *Symbol) {
	r.stmt = append(r.stmt, stmtUse{at, sym})
	if !r.keep {
		return
	}
	off := at.From.Offset
	if off < r.lastOff {
		r.unsorted = true
	}
	r.lastOff = off
	r.info.Uses = append(r.info.Uses, Use{Node: n, Sym: sym})
}

// stmtUse is a use of the statement resolved last: the span of its node
// (which identifies the node: *ast.Reg and *ast.Ident begin with it) and
// its symbol.
type stmtUse struct {
	at  *ast.Span
	sym *Symbol
}

// spanOf returns the span of a name use (*ast.Reg or *ast.Ident), or nil.
func spanOf(n ast.Expr) *ast.Span {
	switch x := n.(type) {
	case *ast.Reg:
		return &x.Span
	case *ast.Ident:
		return &x.Span
	}
	return nil
}

// ruleSpec gives the PTX ISA section behind each rule.
var ruleSpec = map[string]string{
	RuleUndeclaredRegister: "PTX ISA §5.1.1 (Register State Space), §5.4 (Variables)",
	RuleUndeclaredName:     "PTX ISA §4.4 (Identifiers), §5.4 (Variables)",
	RuleUndeclaredLabel:    "PTX ISA §4.4 (Identifiers), §11.3 (Control Flow Directives)",
	RuleUndeclaredFunction: "PTX ISA §11.2 (Kernel and Function Directives)",
	RuleDuplicate:          "PTX ISA §5.4 (Variables)",
	RuleRegisterRange:      "PTX ISA §5.4.6 (Parameterized Variable Names)",
	RuleRegisterOutside:    "PTX ISA §5.1.1 (Register State Space)",
	RuleSpecialComponent:   "PTX ISA §10 (Special Registers)",
	RuleVectorComponent:    "PTX ISA §5.4.2 (Vectors)",
}

func (r *Resolver) errorf(n ast.Node, rule, format string, args ...any) {
	r.errs.Add(diag.Diagnostic{File: r.file, Pos: n.Pos(), End: n.End(), Severity: diag.Error, Rule: rule,
		Message: fmt.Sprintf(format, args...), Spec: ruleSpec[rule]})
}

// fix sets the suggested fix of the last reported diagnostic.
func (r *Resolver) fix(format string, args ...any) {
	if n := len(r.errs); n > 0 {
		r.errs[n-1].Fix = fmt.Sprintf(format, args...)
	}
}

// declareFunc declares f at module scope (PTX ISA §11.2): a definition
// replaces an earlier declaration; two definitions clash.
func (r *Resolver) declareFunc(f *ast.Function) {
	if f.Name == nil {
		return
	}
	name := f.Name.Name
	extern := false
	for _, l := range f.Linkage {
		extern = extern || l == ".extern"
	}
	if prev := r.info.Functions[name]; prev != nil {
		prev.Extern = prev.Extern || extern
		if prev.defined && f.Body != nil {
			r.errorf(f.Name, RuleDuplicate, "function %s redefined (previous definition at %s)", name, prev.Func.Name.Pos())
			return
		}
		if f.Body != nil {
			prev.Func, prev.defined = f, true
		}
		return
	}
	if g := r.t.local(plainNames, name, hash(name)); g != nil {
		r.errorf(f.Name, RuleDuplicate, "%s redeclared as a function (previous declaration at %s)", name, declPos(g))
		return
	}
	sym := r.modSyms.new(Symbol{Kind: Function, Func: f, defined: f.Body != nil, Extern: extern})
	r.info.Functions[name] = sym
	if strings.HasPrefix(name, "%") {
		r.pctFuncs++
	}
	r.funcOrder = append(r.funcOrder, sym)
}

// declareVar declares every name of d in the innermost scope of t.
func (r *Resolver) declareVar(t *table, d *ast.VarDecl, owner *ast.Function, role Role) {
	r.declareOne(t, d, owner, role)
	for _, x := range d.ExtraNames {
		r.declareOne(t, x, owner, role)
	}
}

func kindOf(d *ast.VarDecl) Kind {
	switch d.Space {
	case ".reg", ".sreg":
		return Register
	case ".param":
		return Param
	}
	return Variable
}

// bodyDepth is the scope depth of a function body's outermost block: the
// module is 0, a function's parameters 1.
const bodyDepth = 2

// spaceQual returns the state space of a declaration as a qualifier:
// isa.QNone for registers, isa.QSharedCta for .shared (PTX ISA §5.1).
func spaceQual(space string) isa.Qual {
	if q := isa.DeclQual(space); q != isa.QShared {
		return q
	}
	return isa.QSharedCta
}

// declType returns the type of a declaration as a qualifier, isa.QNone
// when it has none.
func declType(typ string) isa.Qual {
	if q := isa.DeclQual(typ); q.Group() == isa.GType {
		return q
	}
	return isa.QNone
}

func (r *Resolver) declareOne(t *table, d *ast.VarDecl, owner *ast.Function, role Role) {
	if d.Name == nil {
		return
	}
	name := d.Name.Name
	if name == "_" { // unnamed parameter of a prototype or declaration
		return
	}
	if LookupConstant(name) != nil {
		r.errorf(d.Name, RuleDuplicate, "%s is a predefined identifier and cannot be declared", name)
		return
	}
	global := t == &r.t && t.depth == 0
	kind := kindOf(d)
	if role == NoRole && kind == Param && t == &r.t && t.depth > bodyDepth {
		role = CallSlot
	}
	s := Symbol{Kind: kind, Decl: d, Owner: owner, StateSpace: spaceQual(d.Space), ElemType: declType(d.Type), Role: role}
	if d.Vector > 1 {
		s.vec = uint8(min(d.Vector, 255)) // read for every operand: kept here, not behind Decl
	}
	var sym *Symbol
	if global {
		sym = r.modSyms.new(s)
	} else {
		sym = r.bodySyms.new(s)
	}
	h := hash(name)
	if prev := t.declare(name, h, d.Count, sym); prev != nil {
		r.errorf(d.Name, RuleDuplicate, "%s redeclared in this scope (previous declaration at %s)", displayName(d), declPos(prev))
		return
	}
	if global {
		if f := r.info.Functions[name]; f != nil {
			r.errorf(d.Name, RuleDuplicate, "%s redeclared as a variable (function declared at %s)", name, f.Func.Name.Pos())
		}
		r.info.Globals[name] = sym
	}
	r.stmt = append(r.stmt, stmtUse{&d.Name.Span, sym})
	if owner != nil && sym.Kind == Register {
		r.noteOwner(name, h, d.Count >= 0, owner)
	}
}

// noteOwner records owner as the function declaring register name (of
// hash h; a "%r<N>" prefix when counted) unless an earlier one does.
// Functions mostly declare the names the one before them declared: a
// direct-mapped list of names known to have an owner spares the map
// lookup.
func (r *Resolver) noteOwner(name string, h uint32, counted bool, owner *ast.Function) {
	slot := &r.owned[h%uint32(len(r.owned))]
	if slot.name == name && slot.counted == counted {
		return
	}
	owners := r.regOwner
	if counted {
		owners = r.rangeOwner
	}
	name = r.keepString(name) // the slot outlives the body's text
	if owners[name] == nil {
		owners[name] = owner
	}
	*slot = ownedName{name, counted}
}

// ownedName is a register name (or "%r<N>" prefix when counted) that has
// a recorded owner.
type ownedName struct {
	name    string
	counted bool
}

func displayName(d *ast.VarDecl) string {
	if d.Count >= 0 {
		return fmt.Sprintf("%s<%d>", d.Name.Name, d.Count)
	}
	return d.Name.Name
}

func declPos(s *Symbol) token.Pos {
	switch {
	case s.Decl != nil && s.Decl.Name != nil:
		return s.Decl.Name.Pos()
	case s.Label != nil:
		return s.Label.Pos()
	case s.Func != nil && s.Func.Name != nil:
		return s.Func.Name.Pos()
	}
	return token.Pos{}
}

// resolveInits resolves the names in the initializers of d.
func (r *Resolver) resolveInits(d *ast.VarDecl) {
	if d.Init != nil {
		r.expr(d.Init, ctxNone)
	}
	for _, x := range d.ExtraNames {
		if x.Init != nil {
			r.expr(x.Init, ctxNone)
		}
	}
}

// ownerOf returns the first function that declares register name, directly
// or as an element of a parameterized declaration.
func (r *Resolver) ownerOf(name string) *ast.Function {
	if f := r.regOwner[name]; f != nil {
		return f
	}
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	for j := i; j < len(name); j++ {
		if f := r.rangeOwner[name[:j]]; f != nil {
			return f
		}
	}
	return nil
}

func (r *Resolver) fnName() string {
	if r.fn != nil && r.fn.Name != nil {
		return r.fn.Name.Name
	}
	return "this function"
}

// slab hands out symbols carved from chunks, one allocation per chunk.
type slab struct {
	buf []Symbol
}

const slabChunk = 128

func (s *slab) new(sym Symbol) *Symbol {
	if len(s.buf) == cap(s.buf) {
		s.buf = make([]Symbol, 0, slabChunk)
	}
	s.buf = append(s.buf, sym)
	return &s.buf[len(s.buf)-1]
}

// recycle clears the symbols of the current chunk and hands them out again.
// Symbols from it must no longer be used.
func (s *slab) recycle() {
	clear(s.buf)
	s.buf = s.buf[:0]
}

// detach makes the next symbol come from a fresh chunk, so that recycle
// never reuses the symbols handed out so far.
func (s *slab) detach() { s.buf = nil }

// keepString returns s, copied when the resolver must not keep references
// into a body (its text may belong to a recycled buffer).
func (r *Resolver) keepString(s string) string {
	if r.keep {
		return s
	}
	return strings.Clone(s)
}
