package check

import (
	"strings"
	"testing"
)

// tmaModeCase is a tensor copy in a load mode of PTX ISA 8.6 (sm_100a) and
// the rule check must give ("" where the manual's syntax allows it). ptxas
// 12.5 does not know these modes, so the verdicts follow the manual's
// syntax blocks of cp.async.bulk.tensor and cp.async.bulk.prefetch.tensor:
// .tile::gather4 and .tile::scatter4 on 2d maps with a column and four row
// coordinates, .im2col::w and .im2col::w::128 on 3d-5d maps with the
// im2colInfo pair {wHalo, wOffset}; .cta_group may be written before the
// state spaces, as CUTLASS's 2-SM copies write it.
type tmaModeCase struct{ version, target, body, rule string }

const (
	tmaG4    = "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes"
	tmaC5    = "[%Rb64_1, {%Rb32_2, %Rb32_3, %Rb32_4, %Rb32_5, %Rb32_6}]"
	tmaW3    = "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes"
	tmaW128  = "cp.async.bulk.tensor.5d.shared::cta.global.im2col::w::128.mbarrier::complete_tx::bytes"
	tmaS4    = "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group"
	tmaPf    = "cp.async.bulk.prefetch.tensor"
	tmaCoor5 = "[%Rb64_1, {%Rb32_2, %Rb32_3, %Rb32_4, %Rb32_5, %Rb32_6}]"
)

var tmaModeCases = []tmaModeCase{
	// accepted
	{"8.6", "sm_100a", tmaG4 + " [%Rb32_0], " + tmaC5 + ", [%Rb32_7];", ""},
	{"8.6", "sm_100a", tmaG4 + ".multicast::cluster.L2::cache_hint.cta_group::1 [%Rb32_0], " + tmaC5 + ", [%Rb32_7], %Rb16_0, %Rb64_2;", ""},
	{"8.6", "sm_100a", "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes.cta_group::2 [%Rb32_0], " + tmaC5 + ", [%Rb32_7];", ""},
	{"8.6", "sm_101a", tmaW3 + " [%Rb32_0], " + tmaC3 + ", [%Rb32_7], {%Rb16_0, %Rb16_1};", ""},
	{"8.6", "sm_100a", tmaW3 + ".multicast::cluster [%Rb32_0], " + tmaC3 + ", [%Rb32_7], {%Ru16_0, 2}, 3;", ""},
	{"8.6", "sm_100a", tmaW128 + ".L2::cache_hint [%Rb32_0], " + tmaCoor5 + ", [%Rb32_7], {%Rb16_0, %Rb16_1}, %Rb64_2;", ""},
	{"8.6", "sm_100a", tmaS4 + " " + tmaC5 + ", [%Rb32_0];", ""},
	{"8.6", "sm_100a", tmaS4 + ".L2::cache_hint " + tmaC5 + ", [%Rb32_0], %Rb64_2;", ""},
	{"8.6", "sm_100a", tmaPf + ".2d.L2.global.tile::gather4 " + tmaC5 + ";", ""},
	{"8.6", "sm_100a", tmaPf + ".4d.L2.global.im2col::w::128.L2::cache_hint [%Rb64_1, {%Rb32_2, %Rb32_3, %Rb32_4, %Rb32_5}], {%Rb16_0, %Rb16_1}, %Rb64_2;", ""},
	{"8.6", "sm_100a", "cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC2 + ", [%Rb32_7];", ""},
	{"8.6", "sm_100a", "cp.async.bulk.tensor.4d.im2col.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [%Rb32_0], [%Rb64_1, {%Rb32_2, %Rb32_3, %Rb32_4, %Rb32_5}], [%Rb32_7], {%Rb16_0, %Rb16_1};", ""},
	// family targets from PTX ISA 8.8
	{"8.8", "sm_100f", tmaG4 + " [%Rb32_0], " + tmaC5 + ", [%Rb32_7];", ""},
	{"8.8", "sm_103a", "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%Rb32_0], " + tmaC2 + ", [%Rb32_7];", ""},
	// refused
	{"8.6", "sm_100a", tmaG4 + " [%Rb32_0], " + tmaC2 + ", [%Rb32_7];", "tensor-coordinates"},
	{"8.6", "sm_100a", tmaS4 + " " + tmaC2 + ", [%Rb32_0];", "tensor-coordinates"},
	{"8.6", "sm_100a", tmaW3 + " [%Rb32_0], " + tmaC3 + ", [%Rb32_7], {%Rb16_0};", "tensor-coordinates"},
	{"8.6", "sm_100a", tmaW3 + " [%Rb32_0], " + tmaC3 + ", [%Rb32_7], {%Rb32_0, %Rb16_1};", "operand-type"},
	{"8.6", "sm_100a", tmaW3 + " [%Rb32_0], " + tmaC3 + ", [%Rb32_7];", "operand-count"},
	{"8.6", "sm_100a", "cp.async.bulk.tensor.3d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC5 + ", [%Rb32_7];", "qualifier-not-allowed"},
	{"8.6", "sm_100a", "cp.async.bulk.tensor.2d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC2 + ", [%Rb32_7], {%Rb16_0, %Rb16_1};", "qualifier-not-allowed"},
	{"8.6", "sm_100a", "cp.async.bulk.tensor.2d.shared::cluster.global.tile::scatter4.mbarrier::complete_tx::bytes [%Rb32_0], " + tmaC5 + ", [%Rb32_7];", "qualifier-not-allowed"},
	{"8.6", "sm_90a", tmaG4 + " [%Rb32_0], " + tmaC5 + ", [%Rb32_7];", "target"},
	{"8.5", "sm_100a", tmaG4 + " [%Rb32_0], " + tmaC5 + ", [%Rb32_7];", "version"},
}

// TestTMALoadModes86 holds check to the manual's syntax for the load modes
// of PTX ISA 8.6.
func TestTMALoadModes86(t *testing.T) {
	for _, c := range tmaModeCases {
		l, _ := checkSnippet(t, c.version, c.target, c.body)
		var got []string
		for _, d := range l {
			got = append(got, d.Rule)
		}
		switch {
		case c.rule == "" && len(l) != 0:
			t.Errorf("%s %s: %s: the manual allows it, check says %v", c.version, c.target, c.body, l)
		case c.rule != "" && !strings.Contains(strings.Join(got, " "), c.rule):
			t.Errorf("%s %s: %s: want %s, got %v", c.version, c.target, c.body, c.rule, l)
		}
	}
}
