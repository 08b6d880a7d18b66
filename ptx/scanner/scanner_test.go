package scanner

import (
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/token"
)

type tok struct {
	kind Kind
	text string
}

func scanAll(t *testing.T, src string) ([]tok, []string) {
	t.Helper()
	var errs []string
	var s Scanner
	s.Init(src, func(pos token.Pos, msg string) { errs = append(errs, pos.String()+": "+msg) })
	var toks []tok
	for i := 0; ; i++ {
		tk := s.Scan()
		if tk.Kind == EOF {
			return toks, errs
		}
		if i > len(src)+1 {
			t.Fatal("scanner makes no progress")
		}
		toks = append(toks, tok{tk.Kind, tk.Text(src)})
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		src  string
		want []tok
	}{
		{"st.global.v4.u32", []tok{{Ident, "st"}, {Dotted, ".global"}, {Dotted, ".v4"}, {Dotted, ".u32"}}},
		{"st.async.shared::cluster.mbarrier::complete_tx::bytes", []tok{{Ident, "st"}, {Dotted, ".async"},
			{Dotted, ".shared::cluster"}, {Dotted, ".mbarrier::complete_tx::bytes"}}},
		{"tcgen05.st.16x64b.x128.unpack::16b", []tok{{Ident, "tcgen05"}, {Dotted, ".st"}, {Dotted, ".16x64b"},
			{Dotted, ".x128"}, {Dotted, ".unpack::16b"}}},
		{"%tid.x %r<10> $L__BB0_1 _ x16_0.y", []tok{{Ident, "%tid"}, {Dotted, ".x"}, {Ident, "%r"}, {Lss, "<"},
			{Int, "10"}, {Gtr, ">"}, {Ident, "$L__BB0_1"}, {Ident, "_"}, {Ident, "x16_0"}, {Dotted, ".y"}}},
		{"42 0x2A 052 0b101010 42U 0xffU", []tok{{Int, "42"}, {Int, "0x2A"}, {Int, "052"}, {Int, "0b101010"},
			{Int, "42U"}, {Int, "0xffU"}}},
		{"1.5 1e-3 2.5E+10 0f3F800000 0d3FF0000000000000 8.5", []tok{{Float, "1.5"}, {Float, "1e-3"},
			{Float, "2.5E+10"}, {Float, "0f3F800000"}, {Float, "0d3FF0000000000000"}, {Float, "8.5"}}},
		{`"nounroll" "a\"b"`, []tok{{String, `"nounroll"`}, {String, `"a\"b"`}}},
		{"[%rd1+-8], {a, _};", []tok{{LBrack, "["}, {Ident, "%rd1"}, {Add, "+"}, {Sub, "-"}, {Int, "8"},
			{RBrack, "]"}, {Comma, ","}, {LBrace, "{"}, {Ident, "a"}, {Comma, ","}, {Ident, "_"}, {RBrace, "}"}, {Semi, ";"}}},
		{"<< >> <= >= == != && || ! ~ & | ^ ? : = @ ( ) * / %", []tok{{Shl, "<<"}, {Shr, ">>"}, {Leq, "<="},
			{Geq, ">="}, {Eql, "=="}, {Neq, "!="}, {LAnd, "&&"}, {LOr, "||"}, {Not, "!"}, {Tilde, "~"}, {And, "&"},
			{Or, "|"}, {Xor, "^"}, {Question, "?"}, {Colon, ":"}, {Assign, "="}, {At, "@"}, {LParen, "("},
			{RParen, ")"}, {Mul, "*"}, {Quo, "/"}, {Rem, "%"}}},
		{"a // line comment\n/* block\ncomment */ b", []tok{{Ident, "a"}, {Ident, "b"}}},
		{"\xEF\xBB\xBF.version", []tok{{Dotted, ".version"}}},
	}
	for _, tt := range tests {
		got, errs := scanAll(t, tt.src)
		if len(errs) != 0 {
			t.Errorf("%q: unexpected errors %v", tt.src, errs)
		}
		if len(got) != len(tt.want) {
			t.Errorf("%q: got %v, want %v", tt.src, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q: token %d = %v, want %v", tt.src, i, got[i], tt.want[i])
			}
		}
	}
}

func TestPositions(t *testing.T) {
	src := "a\n  bb /* x\ny */ c\n\td"
	var s Scanner
	s.Init(src, nil)
	want := []token.Pos{{Offset: 0, Line: 1, Col: 1}, {Offset: 4, Line: 2, Col: 3}, {Offset: 17, Line: 3, Col: 6}, {Offset: 20, Line: 4, Col: 2}}
	for i, w := range want {
		tk := s.Scan()
		if tk.Pos != w {
			t.Errorf("token %d (%q) at %+v, want %+v", i, tk.Text(src), tk.Pos, w)
		}
		if n := int32(len(tk.Text(src))); tk.End.Offset != w.Offset+n || tk.End.Col != w.Col+n {
			t.Errorf("token %d ends at %+v", i, tk.End)
		}
	}
	if end := s.Scan(); end.Kind != EOF || end.Pos.Offset != int32(len(src)) {
		t.Errorf("EOF at %+v", end.Pos)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct{ src, err string }{
		{"/* open", "1:1: comment not terminated"},
		{"x\n\"abc", "2:1: string literal not terminated"},
		{"0f3F80", "1:1: hexadecimal float literal 0f3F80 must have exactly 8 digits"},
		{"0x", "1:1: hexadecimal literal has no digits"},
	}
	for _, tt := range tests {
		_, errs := scanAll(t, tt.src)
		if len(errs) != 1 || errs[0] != tt.err {
			t.Errorf("%q: errors %v, want [%s]", tt.src, errs, tt.err)
		}
	}
	toks, _ := scanAll(t, "a # b \x80\x81 c")
	var kinds []string
	for _, tk := range toks {
		kinds = append(kinds, tk.kind.String())
	}
	if got := strings.Join(kinds, " "); got != "identifier illegal character identifier illegal character identifier" {
		t.Errorf("illegal characters: %s", got)
	}
}

func TestSkipBalanced(t *testing.T) {
	src := ".section .debug_info { .b8 1 { nested } \"}\" // }\n }\nnext"
	var s Scanner
	s.Init(src, nil)
	var open Token
	for open.Kind != LBrace {
		open = s.Scan()
	}
	end, ok := s.SkipBalanced(open.Pos)
	if !ok || src[end.Offset-1] != '}' || end.Line != 2 {
		t.Fatalf("SkipBalanced ended at %+v ok=%v", end, ok)
	}
	if next := s.Scan(); next.Text(src) != "next" {
		t.Errorf("after the body: %q", next.Text(src))
	}
}
