package sass

import (
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		arch      int
		text      string
		col       int
		field     string
		msgSubstr string
	}{
		{50, "STX [R1], R2", 1, "opcode", "unknown opcode"},
		{50, "STS.U8.S8 [R1], R2", 8, "modifier", "second size"},
		{50, "STS.CG [R1], R2", 5, "modifier", "no modifier .CG"},
		{50, "STL.WB.CG [R1], R2", 8, "modifier", "second cache"},
		{50, "STS [R1+0x800000], R2", 9, "offset", "out of range"},
		{50, "STS [R1-0x800001], R2", 9, "offset", "out of range"},
		{50, "STS [0x1000000], R2", 6, "offset", "out of range [0x0, 0xffffff]"},
		{50, "STS [-4], R2", 7, "offset", "out of range"},
		{50, "STS.64 [R1], R3", 14, "Rb", "not even"},
		{50, "STS.128 [R1], R6", 15, "Rb", "multiple of 4"},
		{50, "STS [R256], R2", 6, "Ra", "bad address register"},
		{50, "STS [R1], Q2", 11, "Rb", "bad register"},
		{50, "@P7 STS [R1], R2", 2, "predicate", "bad predicate"},
		{50, "STS [R1+UR4], R2", 9, "URc", "no uniform-register form"},
		{50, "STS [R1], R2 junk", 14, "", "unexpected"},
		{50, "STS [R1], R2 ?WAIT16", 14, "schedule", "unknown annotation"},
		{50, "STS [R1+2+3], R2", 11, "offset", "more than one offset"},
		{50, "STS [R1, R2", 8, "", "expected '+', '-' or ']'"},
		{90, "STS [R1], R2 &wr=0x1", 1, "write barrier", "must be 7"},
		{90, "STS [R1], R2 ?trans0", 1, "stall", "usched_info 16"},
		{90, "STL.X4 [R1], R2", 5, "modifier", "no modifier .X4"},
		{90, "STL [R1.X4], R2", 6, "scale", "has no scale"},
		{90, "STS [0x10.X4], R2", 6, "offset", "bad or too large number"},
		{75, "STS [R1], R2 ?PM1", 1, "?PM", "has no ?PM"},
		{75, "STG.E desc[UR4][R2.64], R5", 1, "opcode", "not encodable on sm_75"},
		{80, "STS [R1+UR63], R2", 9, "URc", "UR63 does not exist on sm_80"},
		{100, "STS [R1], R2", 1, "URc", "only with a uniform register"},
		{100, "ST.E [R2.64], R2", 1, "opcode", "not encodable on sm_100"},
		{90, "STG.E desc[UR4][R2.U32], R5", 12, "desc", "needs a 64-bit address"},
	}
	for _, tc := range tests {
		_, _, err := ParseLine(tc.text, 3, Arch{tc.arch})
		if err == nil {
			t.Errorf("sm_%d %q: no error", tc.arch, tc.text)
			continue
		}
		if err.Line != 3 || err.Col != tc.col || err.Field != tc.field || !strings.Contains(err.Msg, tc.msgSubstr) {
			t.Errorf("sm_%d %q: got %d:%d %q %q; want 3:%d %q ...%q...", tc.arch, tc.text, err.Line, err.Col, err.Field, err.Msg, tc.col, tc.field, tc.msgSubstr)
		}
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		arch int
		in   string
		out  string
	}{
		{50, "STL.32    [R3+0x1234], R1;   // store to Local address", "STL [R3+0x1234], R1"},
		{50, "STS.64    [R3 - 16], R4;     // store [R5,R4]", "STS.64 [R3+-0x10], R4"},
		{50, "STS.32    [0x12], R1;", "STS [0x12], R1"},
		{50, "STS.32 [18], R1", "STS [0x12], R1"},
		{50, "STL.WB.8 [ R0 + -8 ], R5", "STL.U8 [R0+-0x8], R5"},
		{50, "STL.CG.16 [R0+ - 8], R5", "STL.CG.U16 [R0+-0x8], R5"},
		{50, "@PT STS [RZ], RZ", "STS [RZ], RZ"},
		{50, "@!PT STS [RZ+0x0], RZ", "@!PT STS [RZ], RZ"},
		{50, "STS [], R1", "STS [RZ], R1"},
		{50, "        /*0008*/                   STS [R1], R0 ;          /* 0xef5c000000070100 */", "STS [R1], R0"},
		{50, "ST.E [R2], R0, PT", "ST.E [R2], R0"},
		{90, "{ STS [R1], R0 }", "STS [R1], R0"},
		{90, "STS [R6.X16+UR4+-0x8], R8", "STS [R6.X16+UR4+-0x8], R8"},
		{90, "STG.E.STRONG.GPU desc[UR4][R2.64+0x4], R5", "STG.E.STRONG.GPU desc[UR4][R2.64+0x4], R5"},
		{90, "STL.INVALID7.64 [R1], R2", "STL.INVALID7.64 [R1], R2"},
	}
	for _, tc := range tests {
		in, ok, err := ParseLine(tc.in, 1, Arch{tc.arch})
		if err != nil || !ok {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := in.Text(Arch{tc.arch}); got != tc.out {
			t.Errorf("%q prints %q, want %q", tc.in, got, tc.out)
		}
	}
	for _, blank := range []string{"", "   ", "// only a comment", "# hash", ";"} {
		if _, ok, err := ParseLine(blank, 1, Arch{50}); ok || err != nil {
			t.Errorf("%q: ok=%v err=%v", blank, ok, err)
		}
	}
}

// TestDecodeRejects covers the words nvdisasm rejects (ENCODING.md T5).
func TestDecodeRejects(t *testing.T) {
	for _, c := range []struct {
		arch int
		hex  string
		msg  string
	}{
		{50, "0xef7c000000070100", "not a store instruction"},
		{90, "0x000fe20000000800000000ff01007389", "not a store instruction"},
		{90, "0x000fa20000000800000000ff01007388", "write barrier"}, // dst_wr_sb = 6
		{90, "0x000fe00000000800000000ff01007388", "usched_info 16"},
		{90, "0x040fc00000000800000000ff01007388", "batch value"},             // batch 1 with usched_info 0
		{90, "0x180fe20000000800000000ff01007388", "batch value"},             // batch 6
		{80, "0x000fe20000000800000000ff01007dbd", "not a store instruction"}, // STAS is SM90 only
		{90, "0x000fe800081019040000040502007986", "needs a 64-bit address"},  // STG desc[UR4] with a 32-bit Ra
	} {
		w, err := ParseHex(c.hex, Arch{c.arch})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(w, Arch{c.arch}); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("sm_%d %s: got %v, want %q", c.arch, c.hex, err, c.msg)
		}
	}
}

// TestPtxasSM80Words decodes STG/ST words that ptxas 12.5 emitted for
// sm_80 (desc[UR4] hidden by nvdisasm) and re-encodes their annotated text.
func TestPtxasSM80Words(t *testing.T) {
	arch := Arch{80}
	for _, c := range []struct{ hex, text string }{
		{"0x001fe8000c1019040000040502007986", "STG.E [R2.64+0x4], R5"},
		{"0x000fe8000c10f9040000080502007986", "STG.E.STRONG.GPU [R2.64+0x8], R5"},
		{"0x000fe2000c10190400000c0502007985", "ST.E [R2.64+0xc], R5"},
	} {
		w, _ := ParseHex(c.hex, arch)
		in, err := Decode(w, arch)
		if err != nil || in.Text(arch) != c.text {
			t.Errorf("%s: %q, %v; want %q", c.hex, in.Text(arch), err, c.text)
			continue
		}
		// The text names no descriptor; the parser assumes UR4, as ptxas uses.
		p, _, perr := ParseLine(c.text, 1, arch)
		if perr != nil {
			t.Errorf("%q: %v", c.text, perr)
			continue
		}
		p.Sched = in.Sched
		if w2, err := Encode(p, arch); err != nil || w2 != w {
			t.Errorf("%q encodes to %s, %v; want %s", c.text, w2.Hex(arch), err, c.hex)
		}
		// Another hidden register is shown by Format and parses back.
		in.URc = 6
		f := in.Format(arch)
		if !strings.Contains(f, "&desc=UR6") {
			t.Errorf("%s with UR6: Format %q lacks the hidden descriptor", c.hex, f)
		}
		if p, _, perr := ParseLine(f, 1, arch); perr != nil || p != in {
			t.Errorf("%q parses to %+v, %v; want %+v", f, p, perr, in)
		}
	}
}

// TestPrintedFormsAssemble checks words whose nvdisasm 12.5 text (quoted
// here as nvdisasm printed it) once decoded or assembled wrongly: each
// decodes to that text, and the text assembles to the word, or for an
// alias (docs/sass.md) to the word the parser prefers.
func TestPrintedFormsAssemble(t *testing.T) {
	for _, c := range []struct {
		arch            int
		hex, text, back string // back: the word the text assembles to, if not hex
	}{
		// st.mmio on sm_80 and sm_90: STG without a uniform register.
		{80, "0x000fe8000011890000000c0502007386", "STG.E.MMIO.SYS [R2+0xc], R5", ""},
		{90, "0x002fe80000118900000004ff02007386", "STG.E.MMIO.SYS [R2+0x4], RZ", ""},
		{80, "0x000fe8000011880000000c0502007386", "STG.MMIO.SYS [R2+0xc], R5", ""},
		// sm_80 [UR4+imm]: the width of the absent Ra is not printed.
		{80, "0x000fe8000811890400000c05ff007986", "STG.E.MMIO.SYS [UR4+0xc], R5", ""},
		{80, "0x000fe8000c11890400000c05ff007986", "STG.E.MMIO.SYS [UR4+0xc], R5", "0x000fe8000811890400000c05ff007986"},
		// No .E with a 64-bit Ra.
		{80, "0x000fe8000c1018040000040502007986", "STG.???0 [R2.64+0x4], R5", ""},
		{90, "0x000fe8000c1018040000040502007986", "STG.???0 desc[UR4][R2.64+0x4], R5", ""},
		{90, "0x000fe8000c10080400000405ff007986", "STG.???0 [???255.64+UR4+0x4], R5", ""},
		// STL desc[]: shown on sm_90, hidden on sm_80 without bit 101.
		{90, "0x000fe20008101804000010ffff007987", "STL desc[UR4][RZ+0x10], RZ", ""},
		{80, "0x000fe20008101804000010ffff007987", "STL [RZ+0x10], RZ", ""},
		{80, "0x000fe22008101804000010ffff007987", "STL desc[UR4][RZ+0x10], RZ", ""},
		// STAS memory semantics.
		{90, "0x000fe2000c01883f0000000402007dbd", "STAS.???3.SYS [R2.64], R4", ""},
		// STL.INVALID7: size 7, and policy 7 with the default size.
		{90, "0x000fe80000100e000000200801007387", "STL.INVALID7 [R1+0x20], R8", ""},
		{90, "0x000fe800007008000000200801007387", "STL.INVALID7 [R1+0x20], R8", "0x000fe80000100e000000200801007387"},
	} {
		arch := Arch{c.arch}
		w, err := ParseHex(c.hex, arch)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decode(w, arch)
		if err != nil || d.Text(arch) != c.text {
			t.Errorf("sm_%d %s: Decode = %q, %v; want %q", c.arch, c.hex, d.Text(arch), err, c.text)
			continue
		}
		p, _, perr := ParseLine(c.text, 1, arch)
		if perr != nil {
			t.Errorf("sm_%d %q: %v", c.arch, c.text, perr)
			continue
		}
		p.Sched = d.Sched
		want := c.hex
		if c.back != "" {
			want = c.back
		}
		if got, err := Encode(p, arch); err != nil || got.Hex(arch) != want {
			t.Errorf("sm_%d %q assembles to %s, %v; want %s", c.arch, c.text, got.Hex(arch), err, want)
		}
	}
}
