package main

import (
	"fmt"

	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// reportSource names the line of the program the PTX was compiled from
// ("add.cu:12:5", "kernel.py:53") for the instruction a sanitizer report
// is about: the last .loc before it in its function, its file numbered by
// a .file directive. It returns "" when the report has no position or the
// module carries no such line information.
func reportSource(m *ast.Module, r *emu.Report) string {
	if m == nil || r == nil || r.Pos.Line == 0 {
		return ""
	}
	files := map[uint64]string{}
	var fn *ast.Function
	for _, s := range m.Stmts {
		switch s := s.(type) {
		case *ast.Directive:
			if s.Name == ".file" && len(s.Args) >= 2 {
				n, ok1 := s.Args[0].(*ast.IntLit)
				name, ok2 := s.Args[1].(*ast.StringLit)
				if ok1 && ok2 {
					files[n.Value] = name.Value
				}
			}
		case *ast.Function:
			if s.Body != nil && s.From.Line <= r.Pos.Line && r.Pos.Line <= s.To.Line {
				fn = s
			}
		}
	}
	if fn == nil {
		return ""
	}
	var loc *ast.Directive
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if d, ok := n.(*ast.Directive); ok && d.Name == ".loc" && d.From.Line <= r.Pos.Line {
			loc = d // statements come in source order: the last one wins
		}
		return true
	})
	if loc == nil || len(loc.Args) < 2 {
		return ""
	}
	var nums [3]uint64
	for i := 0; i < 3 && i < len(loc.Args); i++ {
		lit, ok := loc.Args[i].(*ast.IntLit)
		if !ok {
			return ""
		}
		nums[i] = lit.Value
	}
	name, ok := files[nums[0]]
	if !ok || nums[1] == 0 {
		return ""
	}
	if nums[2] == 0 {
		return fmt.Sprintf("%s:%d", name, nums[1])
	}
	return fmt.Sprintf("%s:%d:%d", name, nums[1], nums[2])
}
