package emu

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

// TestNoQualifierStrings keeps qualifier decoding in isa: no source file of
// the emulator (or of tmem) compares a string with a qualifier spelling
// isa knows (== ".global", case ".rn":), keys a table by one, or reads an
// instruction's qualifier strings (HasQual, in.Quals) except decodeISA,
// which hands them to isa. Directive and declaration keywords (.entry,
// .reqntid, .reg) are not qualifiers and may be compared.
func TestNoQualifierStrings(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	tm, _ := filepath.Glob("tmem/*.go")
	files = append(files, tm...)
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
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BinaryExpr:
				if x.Op == token.EQL || x.Op == token.NEQ {
					qualLit(t, fset, x.X)
					qualLit(t, fset, x.Y)
				}
			case *ast.CaseClause:
				for _, e := range x.List {
					qualLit(t, fset, e)
				}
			case *ast.KeyValueExpr:
				qualLit(t, fset, x.Key)
			case *ast.SelectorExpr:
				if x.Sel.Name == "HasQual" || x.Sel.Name == "Quals" && name != "isadecode.go" && isIdent(x.X, "in") {
					t.Errorf("%s: reads the instruction's qualifier strings (%s); use Decoder.quals", fset.Position(x.Pos()), x.Sel.Name)
				}
			}
			return true
		})
	}
	if checked < 20 {
		t.Fatalf("only %d source files checked", checked)
	}
}

// qualLit reports e if it is a string literal isa knows as a qualifier.
func qualLit(t *testing.T, fset *token.FileSet, e ast.Expr) {
	t.Helper()
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return
	}
	s, err := strconv.Unquote(lit.Value)
	if err == nil && strings.HasPrefix(s, ".") && !directives[s] && isa.LookupQual(s) != isa.QNone {
		t.Errorf("%s: compares with qualifier %s; compare isa.Quals", fset.Position(lit.Pos()), s)
	}
}

// directives are directive names that are also qualifier spellings.
var directives = map[string]bool{".alias": true}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
