package diag

import (
	"bytes"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/token"
)

var sample = List{
	{File: "a.ptx", Pos: token.Pos{Offset: 10, Line: 2, Col: 3}, End: token.Pos{Offset: 14, Line: 2, Col: 7},
		Severity: Error, Rule: "undeclared-register", Message: "register %r<1> is not declared",
		Spec: "PTX ISA §5.4", Fix: "declare it"},
	{File: "a.ptx", Pos: token.Pos{Offset: 20, Line: 3, Col: 1}, Severity: Warning, Rule: "w", Message: "m"},
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, sample); err != nil {
		t.Fatal(err)
	}
	want := "a.ptx:2:3: error: register %r<1> is not declared [undeclared-register]\n" +
		"\tspec: PTX ISA §5.4\n" +
		"\tfix: declare it\n" +
		"a.ptx:3:1: warning: m [w]\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sample); err != nil {
		t.Fatal(err)
	}
	want := `{"file":"a.ptx","line":2,"col":3,"end_line":2,"end_col":7,"severity":"error","rule":"undeclared-register","message":"register %r<1> is not declared","spec":"PTX ISA §5.4","fix":"declare it"}` + "\n" +
		`{"file":"a.ptx","line":3,"col":1,"end_line":3,"end_col":1,"severity":"warning","rule":"w","message":"m"}` + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
