// Package token defines source positions for PTX and SASS text.
//
// A Pos is a byte offset with its 1-based line and 1-based byte column
// (the go/token convention). Positions are small values and are embedded in
// every AST node; the file name is kept once, by the owner of the text
// (ast.Module.Filename, diag.Diagnostic.File).
package token

import "fmt"

// Pos is a position in a source text. The zero Pos is "no position".
type Pos struct {
	Offset int32 // byte offset, 0-based
	Line   int32 // 1-based line
	Col    int32 // 1-based byte column
}

// IsValid reports whether p is a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Before reports whether p comes before q in the text.
func (p Pos) Before(q Pos) bool { return p.Offset < q.Offset }

// String formats p as "line:col", or "-" when p is not valid.
func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// Position is a Pos with its file name, printed as "file:line:col".
type Position struct {
	File string
	Pos
}

func (p Position) String() string {
	s := p.File
	if p.IsValid() {
		if s != "" {
			s += ":"
		}
		s += fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	if s == "" {
		s = "-"
	}
	return s
}

// Advance returns the position just after the text s starting at p.
func (p Pos) Advance(s string) Pos {
	for i := 0; i < len(s); i++ {
		p.Offset++
		if s[i] == '\n' {
			p.Line++
			p.Col = 1
		} else {
			p.Col++
		}
	}
	return p
}
