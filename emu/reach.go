package emu

import (
	"sort"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// reach is what a launch of one kernel can touch: the functions it calls
// or takes the address of, transitively, and the module-scope variables
// they name. Only these count toward the kernel's static shared memory,
// as ptxas counts it per kernel: a module whose kernels together declare
// more than one CTA may use still launches each of them.
type reach struct {
	funcs map[*ast.Function]bool
	vars  map[*ast.VarDecl]bool
}

// reachFrom computes the reach of entry from the resolved name uses of m.
// A name used outside every function body (a module variable's
// initializer) is taken as reached.
func (d *Decoder) reachFrom(m *ast.Module, entry *ast.Function) reach {
	var bodies []*ast.Function
	for _, s := range m.Stmts {
		if f, ok := s.(*ast.Function); ok && f.Body != nil {
			bodies = append(bodies, f)
		}
	}
	sort.Slice(bodies, func(i, j int) bool { return bodies[i].From.Offset < bodies[j].From.Offset })
	owner := func(off int32) *ast.Function {
		i := sort.Search(len(bodies), func(i int) bool { return bodies[i].To.Offset > off })
		if i < len(bodies) && bodies[i].From.Offset <= off {
			return bodies[i]
		}
		return nil
	}
	names := map[*ast.Function][]*resolve.Symbol{}
	r := reach{funcs: map[*ast.Function]bool{}, vars: map[*ast.VarDecl]bool{}}
	var work []*ast.Function
	visit := func(sym *resolve.Symbol) {
		switch sym.Kind {
		case resolve.Variable:
			if sym.Owner == nil && sym.Decl != nil {
				r.vars[sym.Decl] = true
			}
		case resolve.Function:
			f := d.aliased[sym]
			if f == nil {
				f = sym.Func
			}
			if f != nil && !r.funcs[f] {
				r.funcs[f] = true
				work = append(work, f)
			}
		}
	}
	for _, u := range d.info.Uses {
		if u.Sym == nil {
			continue
		}
		f := owner(u.Node.Pos().Offset)
		if f == nil {
			visit(u.Sym)
			continue
		}
		names[f] = append(names[f], u.Sym)
	}
	r.funcs[entry] = true
	work = append(work, entry)
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		for _, sym := range names[f] {
			visit(sym)
		}
	}
	return r
}
