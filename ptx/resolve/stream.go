package resolve

import (
	"slices"
	"strings"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Statement by statement: a function body resolved as a parser hands it
// out piece by piece (parser.Stream with parser.StreamStatements), so
// that no more than one statement of it needs to be in memory.
//
// Declarations are visible from the statement after them, so they
// resolve as they come. A label is visible in its whole block, also
// before it (PTX ISA §11.3 branch targets are written before the label
// as often as after): a name that names nothing yet may be a label
// written later in an enclosing block. Its diagnostic waits, as a few
// words (the name, its span, the innermost open block), until the end of
// the function, where the labels of the function are known; it is then
// reported unless such a label was declared. Lookup tries declarations
// before labels, so what resolves at the use stays as the whole-block
// resolution has it; the only other outcome a later label changes is a
// component on a special register (%tid.w where a label %tid follows).

// bodyStream is the state of a function body resolved statement by
// statement.
type bodyStream struct {
	on     bool
	open   []int32   // ids of the open blocks, innermost last; the body is block 0
	known  []bool    // per open block: its labels were declared when it opened (OpenBlockStmts)
	ends   []int32   // per block id: 1 + the last id opened inside it, or 0 while open
	labels []labelAt // labels declared in the function
	last   *Symbol   // symbol of the label just declared (for a .callprototype after it)

	// Uses that a later label may resolve: what decides each (the name,
	// the block, what it would be reported as) once per distinct kind,
	// and per use only its position, in chunks that are never copied. A
	// function of forward branches keeps 20 bytes per branch.
	kinds    []waitKind
	kindOf   map[waitKind]int32
	uses     [][]waitUse
	wideUses []ast.Span // spans of the uses whose span does not fit a waitUse
	found    []bool     // per kind: a label resolves it (settleWaiting)
}

// labelAt is a label declared in block.
type labelAt struct {
	name  string
	block int32
}

// waitKind is what a waiting use of name would be reported as.
type waitKind struct {
	name  string
	comp  string  // with sym: a component sym does not have
	sym   *Symbol // nil: the name was undeclared
	ctx   uint8
	block int32 // innermost open block at the use
}

// waitUse is a waiting use: its kind, where it starts, and its length
// in bytes on that line (or -1-i for wideUses[i]).
type waitUse struct {
	kind int32
	from token.Pos
	n    int32
}

const waitChunk = 4096 // uses per chunk
// BeginFunction declares f and starts resolving its body statement by
// statement: AddStmt, OpenBlock and CloseBlock for each piece of the body
// in source order, then EndFunction. f.Body need not hold the statements
// (parser.StreamStatements gives it none); for a function without a body
// EndFunction follows at once. The result is that of Add(f) on the whole
// function, except that with KeepUses Info.Uses lacks the uses of a label
// written before the label.
func (r *Resolver) BeginFunction(f *ast.Function) {
	r.keep = r.KeepUses
	r.t.cache.invalidate()
	r.declareFunc(f)
	r.beginFunction(f)
	b := &r.body
	b.on = f.Body != nil
	b.open, b.known, b.ends, b.labels, b.last = b.open[:0], b.known[:0], b.ends[:0], b.labels[:0], nil
	if b.on {
		r.OpenBlock()
	}
}

// DeclareFunction declares f at module scope as Add(f) does, without
// resolving its parameters or body: for a caller that brings the module
// scope up to a part of a module that another resolver resolves (the
// functions of the parts before it), so that a call in the part sees the
// declarations a whole-module resolution would.
func (r *Resolver) DeclareFunction(f *ast.Function) {
	r.keep = r.KeepUses
	r.t.cache.invalidate()
	r.declareFunc(f)
}

// Function returns the symbol of the function called name, or nil when
// none is declared.
func (r *Resolver) Function(name string) *Symbol { return r.info.Functions[name] }

// BeginWholeFunction is BeginFunction for a function whose body f.Body
// holds all its statements: the labels of each block are declared when it
// opens (with OpenBlockStmts for the nested ones), as Add does, so that a
// use written before its label resolves where it is, and Info.Uses (with
// KeepUses) has every use.
func (r *Resolver) BeginWholeFunction(f *ast.Function) {
	r.BeginFunction(f)
	if f.Body != nil {
		r.collectBlockLabels(f.Body.Stmts)
	}
}

// OpenBlockStmts opens a nested block whose statements are stmts,
// declaring its labels at once (see BeginWholeFunction).
func (r *Resolver) OpenBlockStmts(stmts []ast.Stmt) {
	r.OpenBlock()
	r.collectBlockLabels(stmts)
}

// collectBlockLabels declares the labels of the innermost open block,
// whose statements are stmts.
func (r *Resolver) collectBlockLabels(stmts []ast.Stmt) {
	b := &r.body
	r.collectLabels(stmts)
	b.known[len(b.known)-1] = true
}

// OpenBlock opens a nested block of the function body.
func (r *Resolver) OpenBlock() {
	b := &r.body
	r.t.open()
	b.open = append(b.open, int32(len(b.ends)))
	b.known = append(b.known, false)
	b.ends = append(b.ends, 0)
	b.last = nil
}

// CloseBlock closes the innermost nested block.
func (r *Resolver) CloseBlock() {
	b := &r.body
	if len(b.open) <= 1 {
		return // the body itself closes at EndFunction
	}
	r.closeBlock()
}

func (r *Resolver) closeBlock() {
	b := &r.body
	r.t.close()
	id := b.open[len(b.open)-1]
	b.open = b.open[:len(b.open)-1]
	b.known = b.known[:len(b.known)-1]
	b.ends[id] = int32(len(b.ends))
	b.last = nil
}

// AddStmt resolves one statement of the function body, in the innermost
// open block: an instruction, declaration, label or directive (a
// *ast.Block is opened and closed with OpenBlock and CloseBlock instead).
// The resolver keeps the declarations and labels it is given (in
// diagnostics it reports later) until EndFunction, and nothing else.
func (r *Resolver) AddStmt(s ast.Stmt) {
	b := &r.body
	if !b.on {
		return
	}
	last := b.last
	b.last = nil
	switch s := s.(type) {
	case *ast.Instruction:
		r.instruction(s)
	case *ast.VarDecl:
		r.stmt = r.stmt[:0]
		r.resolveInits(s)
		r.declareVar(&r.t, s, r.fn, NoRole)
	case *ast.Label:
		if b.known[len(b.known)-1] {
			b.last = r.t.lookupLabel(s.Name, hash(s.Name)) // declared when the block opened
			break
		}
		r.label(s)
	case *ast.Directive:
		if last != nil && s.Proto != nil {
			last.Kind, last.Func = Prototype, s.Proto
		}
		r.directive(s)
	}
}

// AddInstruction is AddStmt of an instruction, for a caller that has
// already told the statements apart.
func (r *Resolver) AddInstruction(in *ast.Instruction) {
	if b := &r.body; b.on {
		b.last = nil
		r.instruction(in)
	}
}

// AddStmts is AddStmt for each of ss in turn (parser.Stream.NextStmts).
func (r *Resolver) AddStmts(ss []ast.Stmt) {
	b := &r.body
	if !b.on || len(ss) == 0 {
		return
	}
	for _, s := range ss {
		if in, ok := s.(*ast.Instruction); ok { // most statements
			r.AddInstruction(in)
			continue
		}
		r.AddStmt(s)
	}
}

// label declares l in the innermost open block (as collectLabels does for
// a whole block).
func (r *Resolver) label(l *ast.Label) {
	b := &r.body
	sym := r.bodySyms.new(Symbol{Kind: Label, Label: l, Owner: r.fn})
	if prev := r.t.declareLabel(l.Name, sym); prev != nil {
		r.errorf(l, RuleDuplicate, "label %s redefined (previous definition at %s)", l.Name, prev.Label.Pos())
	}
	b.labels = append(b.labels, labelAt{l.Name, b.open[len(b.open)-1]})
	b.last = sym
}

// EndFunction ends the function begun by BeginFunction: it reports the
// uses that no label of the function resolves, and drops the function's
// scope.
func (r *Resolver) EndFunction() {
	b := &r.body
	if b.on {
		for len(b.open) > 0 {
			r.closeBlock()
		}
		r.settleWaiting()
		b.on = false
	}
	r.endFunction()
}

// laterLabelMayBe records the use n of name, which matched nothing (sym
// nil) or a special register without component comp, to be decided at
// the end of the function, when it is resolved statement by statement.
// It reports whether it did.
func (r *Resolver) laterLabelMayBe(n ast.Node, name, comp string, sym *Symbol, ctx uint8) bool {
	b := &r.body
	if !b.on {
		return false
	}
	k := waitKind{name: name, comp: comp, sym: sym, ctx: ctx, block: b.open[len(b.open)-1]}
	i, ok := b.kindOf[k]
	if !ok {
		if b.kindOf == nil {
			b.kindOf = make(map[waitKind]int32)
		}
		i = int32(len(b.kinds))
		b.kinds = append(b.kinds, k)
		b.kindOf[k] = i
	}
	from, to := n.Pos(), n.End()
	u := waitUse{kind: i, from: from, n: to.Offset - from.Offset}
	if to.Line != from.Line || to.Col-from.Col != u.n {
		u.n = -1 - int32(len(b.wideUses))
		b.wideUses = append(b.wideUses, ast.Span{From: from, To: to})
	}
	if len(b.uses) == 0 || len(b.uses[len(b.uses)-1]) == waitChunk {
		b.uses = append(b.uses, make([]waitUse, 0, waitChunk))
	}
	last := &b.uses[len(b.uses)-1]
	*last = append(*last, u)
	return true
}

// settleWaiting reports each waiting use unless a label of its name was
// declared in a block enclosing it. The labels are sorted by name and
// searched, so that a function of many labels and forward branches costs
// O((labels + uses) log labels).
func (r *Resolver) settleWaiting() {
	b := &r.body
	if len(b.kinds) == 0 {
		return
	}
	slices.SortFunc(b.labels, func(x, y labelAt) int { return strings.Compare(x.name, y.name) })
	found := b.found[:0]
	for _, k := range b.kinds {
		found = append(found, b.labelled(k.name, k.block))
	}
	b.found = found
	for _, chunk := range b.uses {
		for _, u := range chunk {
			if found[u.kind] {
				continue
			}
			k := &b.kinds[u.kind]
			span := ast.Span{From: u.from, To: token.Pos{Offset: u.from.Offset + u.n, Line: u.from.Line, Col: u.from.Col + u.n}}
			if u.n < 0 {
				span = b.wideUses[-1-u.n]
			}
			if k.sym == nil {
				r.undeclared(span, k.name, k.ctx)
			} else {
				r.checkComponent(span, k.name, k.comp, k.sym)
			}
		}
	}
	clear(b.kinds)
	b.kinds = b.kinds[:0]
	clear(b.kindOf)
	// The first chunk is kept for the next function, the others (of a
	// long function) dropped.
	clear(b.uses[1:])
	b.uses = b.uses[:1]
	b.uses[0] = b.uses[0][:0]
	b.wideUses = b.wideUses[:0]
}

// labelled reports whether a label called name was declared in a block
// enclosing block use (or in it), the labels being sorted by name.
// Blocks are numbered as they open, so those inside block i are numbered
// from i+1 to ends[i]-1.
func (b *bodyStream) labelled(name string, use int32) bool {
	i, _ := slices.BinarySearchFunc(b.labels, name, func(l labelAt, name string) int { return strings.Compare(l.name, name) })
	for ; i < len(b.labels) && b.labels[i].name == name; i++ {
		if blk := b.labels[i].block; blk <= use && use < b.ends[blk] {
			return true
		}
	}
	return false
}
