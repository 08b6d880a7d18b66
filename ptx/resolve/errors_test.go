package resolve_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
	"github.com/ptxkit/ptxkit/ptx/scanner"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// An expectation is an error marker in a testdata file:
//
//	/* ERROR "regexp" */   an error matching regexp starts at the next token
//	// ERROR "regexp"      an error matching regexp is reported on this line
//
// The regexp is matched against "MESSAGE [RULE]".
type expectation struct {
	pos     token.Pos // Col == 0: any column of the line
	re      *regexp.Regexp
	matched bool
}

var markerRE = regexp.MustCompile(`^(?://|/\*)\s*ERROR\s+("(?:[^"\\]|\\.)*")`)

// expectations scans src for error markers.
func expectations(t *testing.T, src string) []*expectation {
	t.Helper()
	var exps []*expectation
	line, col := int32(1), int32(1)
	for i := 0; i < len(src); i++ {
		rest := src[i:]
		if strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "/*") {
			if m := markerRE.FindStringSubmatch(rest); m != nil {
				pat := strings.ReplaceAll(m[1][1:len(m[1])-1], `\"`, `"`)
				re, err := regexp.Compile(pat)
				if err != nil {
					t.Fatalf("%d:%d: bad marker %s: %v", line, col, m[1], err)
				}
				e := &expectation{pos: token.Pos{Line: line}, re: re}
				if rest[1] == '*' {
					end := strings.Index(rest, "*/")
					e.pos = nextToken(src, i+end+2)
				}
				exps = append(exps, e)
			}
		}
		if src[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return exps
}

// nextToken returns the position of the first token at or after off.
func nextToken(src string, off int) token.Pos {
	var s scanner.Scanner
	s.Init(src, nil)
	for {
		tok := s.Scan()
		if tok.Kind == scanner.EOF || int(tok.Pos.Offset) >= off {
			return tok.Pos
		}
	}
}

func check(t *testing.T, file string) {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, errs := parser.ParseFile(file, src)
	if !errs.HasErrors() {
		_, rerrs := resolve.Module(m)
		errs = append(errs, rerrs...)
	}
	exps := expectations(t, string(src))
	if len(exps) == 0 {
		t.Fatalf("%s has no ERROR markers", file)
	}
	for _, d := range errs {
		if !matchExpectation(exps, d) {
			t.Errorf("unexpected diagnostic %s", d)
		}
	}
	for _, e := range exps {
		if !e.matched {
			t.Errorf("%s:%s: missing error matching %q", file, e.pos, e.re)
		}
	}
}

func matchExpectation(exps []*expectation, d diag.Diagnostic) bool {
	text := d.Message + " [" + d.Rule + "]"
	for _, e := range exps {
		if e.matched || e.pos.Line != d.Pos.Line || (e.pos.Col != 0 && e.pos.Col != d.Pos.Col) {
			continue
		}
		if e.re.MatchString(text) {
			e.matched = true
			return true
		}
	}
	return false
}

// TestErrors checks the diagnostics of the files in testdata/ptx/errors
// against their ERROR markers: every marker must be matched by a
// diagnostic at its position and every diagnostic by a marker. Syntax
// errors are checked first; resolution runs only on files that parse.
func TestErrors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "ptx", "errors", "*.ptx"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no error test files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { check(t, f) })
	}
}
