package ast

// Inspect traverses the tree rooted at n in source order, calling f for
// each node; when f returns false the children of that node are skipped.
// Nil nodes are not visited.
func Inspect(n Node, f func(Node) bool) {
	if isNil(n) || !f(n) {
		return
	}
	switch n := n.(type) {
	case *Module:
		for _, s := range n.Stmts {
			Inspect(s, f)
		}
	case *Function:
		for _, d := range n.Returns {
			Inspect(d, f)
		}
		inspectNode(n.Name, f)
		for _, d := range n.Params {
			Inspect(d, f)
		}
		for _, d := range n.Perf {
			Inspect(d, f)
		}
		inspectNode(n.Body, f)
	case *Block:
		for _, s := range n.Stmts {
			Inspect(s, f)
		}
	case *Directive:
		inspectExprs(n.Args, f)
		inspectNode(n.Proto, f)
	case *VarDecl:
		inspectNode(n.Name, f)
		inspectNode(n.Init, f)
		for _, x := range n.ExtraNames {
			Inspect(x, f)
		}
	case *Instruction:
		inspectNode(n.Guard, f)
		inspectExprs(n.Operands, f)
	case *Guard:
		inspectNode(n.Reg, f)
	case *VectorExpr:
		inspectExprs(n.Elems, f)
	case *InitList:
		inspectExprs(n.Elems, f)
	case *ParenList:
		inspectExprs(n.Elems, f)
	case *Address:
		inspectNode(n.Base, f)
		inspectExprs(n.Index, f)
	case *IndexExpr:
		inspectNode(n.X, f)
		inspectNode(n.Index, f)
	case *ParenExpr:
		inspectNode(n.X, f)
	case *UnaryExpr:
		inspectNode(n.X, f)
	case *BinaryExpr:
		inspectNode(n.X, f)
		inspectNode(n.Y, f)
	case *CallExpr:
		inspectExprs(n.Args, f)
	}
}

func inspectExprs(es []Expr, f func(Node) bool) {
	for _, e := range es {
		Inspect(e, f)
	}
}

func inspectNode[T Node](n T, f func(Node) bool) { Inspect(n, f) }

// isNil reports whether n is nil or a typed nil pointer.
func isNil(n Node) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *Module:
		return n == nil
	case *Function:
		return n == nil
	case *Block:
		return n == nil
	case *Directive:
		return n == nil
	case *VarDecl:
		return n == nil
	case *Instruction:
		return n == nil
	case *Guard:
		return n == nil
	case *Ident:
		return n == nil
	case *Reg:
		return n == nil
	}
	return false
}
