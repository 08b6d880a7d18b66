// Package qualguard holds the check, shared by the tests of the packages
// that read PTX instructions, that qualifier decoding stays in package
// isa: no source file compares a string with a qualifier spelling isa
// knows (== ".global", case ".rn":), keys a table by one, or asks an
// instruction for a qualifier by its spelling (HasQual). Those packages
// read decoded isa.Quals instead.
package qualguard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

// Options says what a package may do besides comparing decoded Quals.
type Options struct {
	// ReadsQuals reports whether a file may read an instruction's
	// qualifier list (in.Quals); nil allows every file (for positions
	// and messages: the guard still catches comparisons).
	ReadsQuals func(file string) bool

	// Allowed lists, per file, the qualifier spellings that file may
	// still compare; each entry needs a reason where it is given.
	Allowed map[string][]string

	// DocTables names package-level variables that map spellings to
	// documentation text, looked up by a decoded Qual's String(): their
	// keys are not comparisons.
	DocTables []string

	// MinFiles is the fewest source files the check must parse, so that
	// a wrong glob cannot make it pass vacuously.
	MinFiles int
}

// Check parses the non-test Go files among files and reports, through
// t, every comparison, case or composite-literal key that is a
// qualifier spelling, every isa.LookupQual of a spelled qualifier, every
// HasQual call, and every read of in.Quals
// that opts does not allow.
func Check(t testing.TB, files []string, opts Options) {
	t.Helper()
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		g := guard{t: t, fset: fset, allowed: opts.Allowed[name], docTables: opts.DocTables,
			readsQuals: opts.ReadsQuals == nil || opts.ReadsQuals(name)}
		ast.Inspect(f, g.inspect)
	}
	if checked < opts.MinFiles {
		t.Fatalf("only %d source files checked, want at least %d", checked, opts.MinFiles)
	}
}

// guard checks the syntax of one file.
type guard struct {
	t          testing.TB
	fset       *token.FileSet
	allowed    []string
	docTables  []string
	readsQuals bool
}

// inspect checks n and reports whether to look inside it.
func (g *guard) inspect(n ast.Node) bool {
	g.t.Helper()
	switch x := n.(type) {
	case *ast.ValueSpec:
		if len(x.Names) == 1 && slices.Contains(g.docTables, x.Names[0].Name) {
			return false
		}
	case *ast.BinaryExpr:
		if x.Op == token.EQL || x.Op == token.NEQ {
			g.qualLit(x.X)
			g.qualLit(x.Y)
		}
	case *ast.CaseClause:
		for _, e := range x.List {
			g.qualLit(e)
		}
	case *ast.KeyValueExpr:
		g.qualLit(x.Key)
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "LookupQual" && len(x.Args) == 1 {
			if lit, ok := x.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				g.t.Errorf("%s: looks qualifier %s up by its spelling; use its isa constant", g.fset.Position(lit.Pos()), lit.Value)
			}
		}
	case *ast.SelectorExpr:
		if x.Sel.Name == "HasQual" || x.Sel.Name == "Quals" && !g.readsQuals && isIdent(x.X, "in") {
			g.t.Errorf("%s: reads the instruction's qualifier strings (%s); use decoded isa.Quals", g.fset.Position(x.Pos()), x.Sel.Name)
		}
	}
	return true
}

// qualLit reports e if it is a string literal isa knows as a qualifier.
func (g *guard) qualLit(e ast.Expr) {
	g.t.Helper()
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return
	}
	s, err := strconv.Unquote(lit.Value)
	if err == nil && IsQualifier(s) && !slices.Contains(g.allowed, s) {
		g.t.Errorf("%s: compares with qualifier %s; compare isa.Quals", g.fset.Position(lit.Pos()), s)
	}
}

// IsQualifier reports whether s is a spelling isa decodes as an
// instruction qualifier and not a directive name.
func IsQualifier(s string) bool {
	return strings.HasPrefix(s, ".") && !directives[s] && isa.LookupQual(s) != isa.QNone
}

// directives are directive and declaration keywords that the parser and
// its clients handle and that are not instruction qualifiers, although
// some share a spelling with one (.alias is also a qualifier of fence).
var directives = map[string]bool{
	".version": true, ".target": true, ".address_size": true,
	".alias": true, ".entry": true, ".extern": true,
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
