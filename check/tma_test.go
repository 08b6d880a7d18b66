package check

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
)

// tmaCase is a tensor-copy instruction and ptxas 12.5's verdict on it
// (sm_90a, PTX 8.5): "" (accepted) or the rule check must give.
type tmaCase struct{ body, rule string }

const (
	tmaLd2  = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
	tmaLd3i = "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
	tmaSt2  = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
	tmaC2   = "[%Rb64_1, {%Rb32_2, %Rb32_3}]"
	tmaC3   = "[%Rb64_1, {%Rb32_2, %Rb32_3, %Rb32_4}]"
)

// The verdicts were ptxas 12.5's when this was written; TestTMAOperandsPtxas
// asks it again when it is installed.
var tmaCases = []tmaCase{
	// accepted: every direction, mode and optional operand
	{"cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%Rb32_0], [%Rb64_1, {%Rb32_2}], [%Rb32_5];", ""},
	{tmaLd2 + " [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", ""},
	{"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", ""},
	{"cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%Rb32_0], [%Rb64_1, {%Rb32_2, %Rb32_3, %Rb32_4, %Rb32_5, %Rb32_6}], [%Rb32_7];", ""},
	{tmaLd3i + " [%Rb32_0], " + tmaC3 + ", [%Rb32_5], {%Rb16_0};", ""},
	{tmaLd3i + " [%Rb32_0], " + tmaC3 + ", [%Rb32_5], {1};", ""},
	{"cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%Rb32_0], [%Rb64_1, {%Rb32_2, %Rb32_3, %Rb32_4, %Rb32_5, %Rb32_6}], [%Rb32_7], {%Ru16_0, %Rs16_1, %Rb16_2};", ""},
	{tmaLd2 + ".multicast::cluster [%Rb32_0], " + tmaC2 + ", [%Rb32_5], %Rb16_0;", ""},
	{tmaLd2 + ".multicast::cluster [%Rb32_0], " + tmaC2 + ", [%Rb32_5], 3;", ""},
	{tmaLd2 + ".multicast::cluster.L2::cache_hint [%Rb32_0], " + tmaC2 + ", [%Rb32_5], %Ru16_0, %Rb64_2;", ""},
	{tmaLd2 + ".L2::cache_hint.multicast::cluster [%Rb32_0], " + tmaC2 + ", [%Rb32_5], %Ru16_0, %Rb64_2;", ""},
	{tmaLd2 + ".L2::cache_hint [%Rb32_0], " + tmaC2 + ", [%Rb32_5], 0;", ""},
	{tmaLd3i + ".multicast::cluster.L2::cache_hint [%Rb32_0], " + tmaC3 + ", [%Rb32_5], {%Rb16_0}, %Rb16_1, %Rb64_2;", ""},
	{tmaLd2 + " [%Rb32_0], [%Rb64_1, {%Rf32_2, %Rb32_3}], [%Rb32_5];", ""},
	{tmaLd2 + " [%Rb32_0], [%Rb64_1, {%Rb32_2, 7}], [%Rb32_5];", ""},
	{tmaLd2 + " [%Rb32_0], [%Rb32_1, {%Rb32_2, %Rb32_3}], [%Rb32_5];", ""},
	{tmaLd2 + " [%Rb32_0], [gb, {%Rb32_2, %Rb32_3}], [%Rb32_5];", ""},
	{tmaLd2 + " [sh], " + tmaC2 + ", [sh+8];", ""},
	{tmaSt2 + " " + tmaC2 + ", [%Rb32_0];", ""},
	{"cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group " + tmaC2 + ", [%Rb32_0];", ""},
	{tmaSt2 + ".L2::cache_hint " + tmaC2 + ", [%Rb32_0], %Rb64_2;", ""},
	{"cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group " + tmaC3 + ", [%Rb32_0];", ""},
	{"cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group " + tmaC2 + ", [%Rb32_0];", ""},
	{"cp.reduce.async.bulk.tensor.2d.global.shared::cta.xor.tile.bulk_group.L2::cache_hint " + tmaC2 + ", [%Rb32_0], %Rb64_2;", ""},
	{"cp.reduce.async.bulk.tensor.3d.global.shared::cta.min.im2col_no_offs.bulk_group " + tmaC3 + ", [%Rb32_0];", ""},
	{"cp.async.bulk.prefetch.tensor.2d.L2.global " + tmaC2 + ";", ""},
	{"cp.async.bulk.prefetch.tensor.3d.L2.global.im2col.L2::cache_hint " + tmaC3 + ", {%Rb16_0}, %Rb64_2;", ""},

	// rejected: qualifiers
	{"cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC2 + ", [%Rb32_5], {%Rb16_0};", "qualifier-not-allowed"},
	{"cp.async.bulk.tensor.2d.global.shared::cta.im2col_no_offs.bulk_group " + tmaC2 + ", [%Rb32_0];", "qualifier-not-allowed"},
	{"cp.async.bulk.tensor.3d.shared::cluster.global.im2col_no_offs.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC3 + ", [%Rb32_5];", "qualifier-not-allowed"},
	{"cp.async.bulk.tensor.3d.global.shared::cta.im2col.bulk_group " + tmaC3 + ", [%Rb32_0];", "qualifier-not-allowed"},
	{tmaSt2 + ".multicast::cluster " + tmaC2 + ", [%Rb32_0], %Rb16_0;", "qualifier-not-allowed"},
	{"cp.async.bulk.tensor.2d.shared::cluster.global [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", "missing-qualifier"},
	{"cp.async.bulk.tensor.shared::cluster.global.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", "missing-qualifier"},
	{"cp.async.bulk.tensor.2d.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", "qualifier-conflict"},
	{"cp.async.bulk.tensor.2d.shared::cluster.global.tile.im2col.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", "qualifier"},
	{"cp.reduce.async.bulk.tensor.2d.global.shared::cta.bulk_group " + tmaC2 + ", [%Rb32_0];", "missing-qualifier"},
	{"cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.min.bulk_group " + tmaC2 + ", [%Rb32_0];", "qualifier-conflict"},
	{"cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", "ptx-version"},
	{tmaLd2 + ".cta_group::1 [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", "ptx-version"},
	{"cp.async.bulk.tensor.2d.global.shared::cluster.bulk_group " + tmaC2 + ", [%Rb32_0];", "qualifier"},
	{"cp.async.bulk.tensor.2d.global.shared::cluster.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", "state-space-order"},

	// rejected: operands
	{tmaLd2 + " [%Rb32_0], [%Rb64_1, {%Rb32_2}], [%Rb32_5];", "tensor-coordinates"},
	{tmaLd2 + " [%Rb32_0], " + tmaC3 + ", [%Rb32_5];", "tensor-coordinates"},
	{tmaSt2 + " [%Rb64_1, {%Rb32_2}], [%Rb32_0];", "tensor-coordinates"},
	{"cp.async.bulk.prefetch.tensor.2d.L2.global [%Rb64_1, {%Rb32_2}];", "tensor-coordinates"},
	{tmaLd3i + " [%Rb32_0], " + tmaC3 + ", [%Rb32_5], {%Rb16_0, %Rb16_1};", "tensor-coordinates"},
	{"cp.async.bulk.prefetch.tensor.3d.L2.global.im2col " + tmaC3 + ", {%Rb16_0, %Rb16_1};", "tensor-coordinates"},
	{tmaLd3i + " [%Rb32_0], " + tmaC3 + ", [%Rb32_5];", "operand-count"},
	{tmaLd3i + " [%Rb32_0], " + tmaC3 + ", [%Rb32_5], {%Rb32_6};", "operand-type"},
	{tmaLd3i + " [%Rb32_0], " + tmaC3 + ", [%Rb32_5], {%Rf16_0};", "operand-type"},
	{tmaLd3i + " [%Rb32_0], " + tmaC3 + ", [%Rb32_5], %Rb16_0;", "tensor-operand"},
	{tmaLd2 + ".multicast::cluster [%Rb32_0], " + tmaC2 + ", [%Rb32_5], %Rb32_6;", "operand-type"},
	{tmaLd2 + ".multicast::cluster [%Rb32_0], " + tmaC2 + ", [%Rb32_5], %Rb64_6;", "operand-type"},
	{tmaLd2 + ".multicast::cluster [%Rb32_0], " + tmaC2 + ", [%Rb32_5], %Rpred_0;", "operand-type"},
	{tmaLd2 + ".multicast::cluster [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", "operand-count"},
	{tmaLd2 + ".L2::cache_hint [%Rb32_0], " + tmaC2 + ", [%Rb32_5], %Rb32_6;", "operand-type"},
	{tmaLd2 + ".L2::cache_hint [%Rb32_0], " + tmaC2 + ", [%Rb32_5], %Rf32_6;", "operand-type"},
	{tmaLd2 + ".L2::cache_hint [%Rb32_0], " + tmaC2 + ", [%Rb32_5];", "operand-count"},
	{tmaLd2 + " [%Rb32_0], " + tmaC2 + ", [%Rb32_5], %Rb64_2;", "operand-count"},
	{tmaSt2 + " " + tmaC2 + ", [%Rb32_0], %Rb64_2;", "operand-count"},
	{tmaLd2 + " [%Rb32_0], [%Rb64_1], [%Rb32_5];", "tensor-operand"},
	{tmaLd2 + " [%Rb32_0], %Rb64_1, [%Rb32_5];", "tensor-operand"},
	{tmaLd2 + " [%Rb32_0], [%Rb64_1, {%Rb64_2, %Rb32_3}], [%Rb32_5];", "operand-type"},
	{tmaLd2 + " [%Rb32_0], [%Rb64_1, {%Rb16_2, %Rb32_3}], [%Rb32_5];", "operand-type"},
	{tmaLd2 + " [%Rb32_0], [%Rb64_1, {_, %Rb32_3}], [%Rb32_5];", "operand-kind"},
	{tmaLd2 + " [%Rb32_0], [%Rb64_1, {%Rf32_2, 7}], [%Rb32_5];", "operand-type"},
	{tmaLd2 + " [%Rb32_0], [%Rb64_1, {gb, %Rb32_3}], [%Rb32_5];", "operand-kind"},
	{tmaLd2 + ".multicast::cluster [%Rb32_0], " + tmaC2 + ", [%Rb32_5], [%Rb32_6];", "operand-kind"},
	{tmaLd2 + " [%Rb32_0], [p, {%Rb32_2, %Rb32_3}], [%Rb32_5];", "tensor-map-space"},
	{tmaLd2 + " [%Rb32_0], [cn, {%Rb32_2, %Rb32_3}], [%Rb32_5];", "tensor-map-space"},
	{tmaSt2 + " [p, {%Rb32_2, %Rb32_3}], [%Rb32_0];", "tensor-map-space"},
	{"cp.async.bulk.prefetch.tensor.2d.L2.global [p, {%Rb32_2, %Rb32_3}];", "tensor-map-space"},
	{tmaLd2 + " [%Rb32_0], [%Rb64_1+64, {%Rb32_2, %Rb32_3}], [%Rb32_5];", "tensor-operand"},
}

// TestTMAOperands holds check to the recorded verdicts.
func TestTMAOperands(t *testing.T) { checkRecordedVerdicts(t, tmaCases) }

// TestTMAOperandsPtxas asks ptxas 12.5 again for every case.
func TestTMAOperandsPtxas(t *testing.T) { askPtxasAgain(t, tmaCases) }

// checkRecordedVerdicts checks each case (sm_90a, PTX 8.5) and wants no
// diagnostic where ptxas accepts it and the recorded rule where it does
// not.
func checkRecordedVerdicts(t *testing.T, cases []tmaCase) {
	t.Helper()
	for _, c := range cases {
		l, _ := checkSnippet(t, "8.5", "sm_90a", c.body)
		var got []string
		for _, d := range l {
			got = append(got, d.Rule)
		}
		switch {
		case c.rule == "" && len(l) != 0:
			t.Errorf("%s: ptxas accepts it, check says %v", c.body, l)
		case c.rule != "" && !strings.Contains(strings.Join(got, " "), c.rule):
			t.Errorf("%s: want %s, got %v", c.body, c.rule, l)
		}
	}
}

// askPtxasAgain assembles each case with ptxas 12.5 (sm_90a, PTX 8.5)
// and wants its verdict to be the recorded one.
func askPtxasAgain(t *testing.T, cases []tmaCase) {
	t.Helper()
	ptxas := oracle.Ptxas()
	if ptxas == "" {
		t.Skip(oracle.SkipMessage)
	}
	if testing.Short() {
		t.Skip("asks ptxas once per case; not with -short")
	}
	dir := t.TempDir()
	for i, c := range cases {
		src := filepath.Join(dir, "t.ptx")
		if err := os.WriteFile(src, []byte(kernelHeader("8.5", "sm_90a")+c.body+"\n"+kernelFooter), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(ptxas, "-arch=sm_90a", src, "-o", filepath.Join(dir, "t.cubin")).CombinedOutput()
		if accepted := err == nil; accepted != (c.rule == "") {
			t.Errorf("case %d %s: ptxas accepted=%v, recorded rule %q\n%s", i, c.body, accepted, c.rule, out)
		}
	}
}
