package check

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

// The operand-kind enumeration of the forms whose operands were described
// after operand-kinds.tsv.gz was recorded (ldmatrix and stmatrix fragment
// vectors, applypriority, discard): the same 63 kinds in every position,
// ptxas 12.5's verdicts recorded in testdata/ptxas/operand-kinds-more.tsv
// (PTXKIT_RECORD_KINDS_MORE=1 with ptxas installed writes it), compared
// with the checker by TestOperandKindsMore. The main record's lines are
// keyed by the text of the line, so the two records do not overlap.

const kindsMoreFile = "../testdata/ptxas/operand-kinds-more.tsv"

// kindsMoreOpcodes are the opcodes whose forms the supplementary record
// enumerates.
var kindsMoreOpcodes = []string{"ldmatrix", "stmatrix", "wmma", "applypriority", "discard", "txq", "suq"}

const bracedLod = "ptxas 12.5 takes a braced vector for the lod operand of txq.level, which the manual gives as a 32-bit integer"

const bitOnlyFragment = "the .bf16 and .tf32 fragments of wmma.load take .b32 registers only (ptxas 12.5 refuses .f32 ones, which the .b32 operand type of the form format admits)"

// kindsMoreKnown are the lines where the checker still differs from ptxas
// 12.5 ("accepts" or "rejects": ptxas's verdict, a tab, the line), each
// left for the reason given.
var kindsMoreKnown = map[string]string{
	"accepts\ttxq.level.depth.b32 %Rb32_1, [%Ru64_5], {%Rb32_1, %Rb32_2};":                                             bracedLod,
	"accepts\ttxq.level.depth.b32 %Rb32_1, [%Ru64_5], {%Rb32_1, %Rb32_2, %Rb32_3, %Rb32_4};":                           bracedLod,
	"accepts\ttxq.level.depth.b32 %Rb32_1, [%Ru64_5], {1, 2};":                                                         bracedLod,
	"rejects\twmma.load.a.sync.aligned.col.m16n16k16.global.bf16 vf4, [%Ru64_2], 23;":                                  bitOnlyFragment,
	"rejects\twmma.load.a.sync.aligned.col.m16n16k16.global.bf16 {%Rf32_1, %Rf32_2, %Rf32_3, %Rf32_4}, [%Ru64_2], 23;": bitOnlyFragment,
	"rejects\twmma.load.b.sync.aligned.row.m16n16k16.bf16 vf4, [%Ru64_4], %Ru32_7;":                                    bitOnlyFragment,
	"rejects\twmma.load.b.sync.aligned.row.m16n16k16.bf16 {%Rf32_1, %Rf32_2, %Rf32_3, %Rf32_4}, [%Ru64_4], %Ru32_7;":   bitOnlyFragment,
	"rejects\twmma.load.b.sync.aligned.row.m16n16k8.tf32 vf4, [%Ru64_1], 6;":                                           bitOnlyFragment,
	"rejects\twmma.load.b.sync.aligned.row.m16n16k8.tf32 {%Rf32_1, %Rf32_2, %Rf32_3, %Rf32_4}, [%Ru64_1], 6;":          bitOnlyFragment,
}

func TestOperandKindsMore(t *testing.T) {
	if os.Getenv("PTXKIT_RECORD_KINDS_MORE") != "" {
		ptxas := ptxasPath("12.5")
		if ptxas == "" {
			t.Fatal("PTXKIT_RECORD_KINDS_MORE needs ptxas 12.5")
		}
		cases := enumerateKindsOf(func(f *isa.OpForm) bool { return slices.Contains(kindsMoreOpcodes, f.Opcode) })
		writeKindsMore(t, ptxasKinds(t, ptxas, cases))
	}
	cases := readKindsMore(t)
	forms := map[string]bool{}
	for _, c := range cases {
		op, _, _ := strings.Cut(c.line, ".")
		forms[op] = true
	}
	for _, op := range kindsMoreOpcodes {
		if !forms[op] {
			t.Errorf("%s holds no line of %s: record it again (PTXKIT_RECORD_KINDS_MORE=1)", kindsMoreFile, op)
		}
	}
	ours := checkKinds(cases)
	agree, known := 0, 0
	for i, c := range cases {
		if ours[i] == c.ok {
			agree++
			continue
		}
		verdict := "rejects"
		if c.ok {
			verdict = "accepts"
		}
		if _, ok := kindsMoreKnown[verdict+"\t"+c.line]; ok {
			known++
		} else {
			t.Errorf("ptxas 12.5 %s %q, the checker does not", verdict, c.line)
		}
	}
	if known != len(kindsMoreKnown) {
		t.Errorf("%d of the %d known differences remain: remove the others from kindsMoreKnown", known, len(kindsMoreKnown))
	}
	t.Logf("operand kinds of %s: %d/%d lines agree with ptxas 12.5 (%d known differences)", strings.Join(kindsMoreOpcodes, ", "), agree, len(cases), known)
}

func writeKindsMore(t *testing.T, cases []kindCase) {
	var b strings.Builder
	fmt.Fprintf(&b, "# ptxas 12.5 verdicts (1 accepts, 0 rejects) of every operand kind in every operand position of the\n")
	fmt.Fprintf(&b, "# forms of %s, PTX ISA %s, %s (check/enumerate_more_test.go).\n", strings.Join(kindsMoreOpcodes, ", "), kindsVersion, kindsTarget)
	b.WriteString("# form-line\tposition\tkind\tverdict\tinstruction\n")
	for _, c := range cases {
		v := 0
		if c.ok {
			v = 1
		}
		fmt.Fprintf(&b, "%d\t%d\t%s\t%d\t%s\n", c.form, c.pos, c.kind, v, c.line)
	}
	if err := os.WriteFile(kindsMoreFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readKindsMore(t *testing.T) []kindCase {
	f, err := os.Open(kindsMoreFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return parseKindCases(t, kindsMoreFile, f)
}
