package emu

import (
	"fmt"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Source lines from .loc: compilers put ".loc FILE LINE COL" before the
// instructions of each source line and ".file FILE "path"" at module
// scope. Reports that name instructions (the race detector's) add the
// source line to the PTX line.

// srcLoc is a .loc position: the .file index and line (0: none).
type srcLoc struct{ file, line, col int32 }

// sourceMap holds the .file table and the .loc of the instructions that
// have one (most kernels have none, so a map, not a slice).
type sourceMap struct {
	files map[int32]string
	locs  map[int32]srcLoc
}

// sourceFiles reads the module's .file directives.
func (d *Decoder) sourceFiles(m *ast.Module) {
	for _, s := range m.Stmts {
		x, ok := s.(*ast.Directive)
		if !ok || x.Name != ".file" || len(x.Args) < 2 {
			continue
		}
		n, ok1 := x.Args[0].(*ast.IntLit)
		path, ok2 := x.Args[1].(*ast.StringLit)
		if ok1 && ok2 {
			if d.prog.src.files == nil {
				d.prog.src.files = map[int32]string{}
			}
			d.prog.src.files[int32(n.Value)] = path.Value
		}
	}
}

// noteLoc makes a .loc directive the source position of the instructions
// that follow it.
func (d *Decoder) noteLoc(x *ast.Directive) {
	if x.Name != ".loc" || len(x.Args) < 2 {
		return
	}
	var v [3]int32
	for i := range min(3, len(x.Args)) {
		if n, ok := x.Args[i].(*ast.IntLit); ok {
			v[i] = int32(n.Value)
		}
	}
	d.loc = srcLoc{file: v[0], line: v[1], col: v[2]}
}

// placeLoc gives the instructions lowered from pc from on the current
// .loc position.
func (d *Decoder) placeLoc(from int) {
	if d.loc.line == 0 {
		return
	}
	if d.prog.src.locs == nil {
		d.prog.src.locs = map[int32]srcLoc{}
	}
	for pc := from; pc < len(d.prog.Insts); pc++ {
		d.prog.src.locs[int32(pc)] = d.loc
	}
}

// SourceOf returns the source position (.loc, .file) of the instruction at
// pos, as "path:line" or "path:line:col", or "" when the module carries no
// line information for it. Reports name it beside the PTX line.
func (p *Program) SourceOf(pos token.Pos) string {
	if pos.Line == 0 || len(p.src.locs) == 0 {
		return ""
	}
	for pc := range p.Insts {
		if p.Insts[pc].Pos == pos {
			return p.sourceLine(int32(pc))
		}
	}
	return ""
}

// sourceLine returns the source position of instruction pc as
// "path:line:col", or "" without .loc.
func (p *Program) sourceLine(pc int32) string {
	l, ok := p.src.locs[pc]
	if !ok {
		return ""
	}
	name := p.src.files[l.file]
	if name == "" {
		name = fmt.Sprintf("file %d", l.file)
	}
	if l.col > 0 {
		return fmt.Sprintf("%s:%d:%d", name, l.line, l.col)
	}
	return fmt.Sprintf("%s:%d", name, l.line)
}
