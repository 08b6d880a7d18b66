package check

import "testing"

// wgmmaOperandCases are wgmma.mma_async instructions and ptxas 12.5's
// verdict on them (sm_90a, PTX 8.5): "" (accepted) or the rule check must
// give. TestWgmmaOperandsPtxas asks ptxas again when it is installed.
var wgmmaOperandCases = []tmaCase{
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", ""},
	{wgF16 + " {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", ""},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rb32_3}, %Ru64_1, %Rs64_2, %Rpred_0, 1, 1, 0, 0;", ""},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, 0, %Rb64_2, !%Rpred_0, 1, 1, 0, 0;", ""},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, {%Rb32_4, %Rb32_5, %Rb32_6, %Rb32_7}, %Rb64_2, 1, 1, 1, 0;", ""},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, {%Rf16x2_4, %Rf16x2_5, %Rf16x2_6, %Rf16x2_7}, %Rb64_2, 1, 1, 1, 0;", ""},
	{"wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%Rb32_0, %Rb32_1}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", ""},
	{"wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%Rf16x2_0, %Rf16x2_1}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", ""},
	{"wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", ""},
	{"wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3, %Rf32_4, %Rf32_5, %Rf32_6, %Rf32_7}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", ""},
	{wgS8 + " {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3}, %Rb64_1, %Rb64_2, 1;", ""},
	{wgS8 + " {%Rs32_0, %Rs32_1, %Rs32_2, %Rs32_3}, %Rb64_1, %Rb64_2, 1;", ""},
	{wgS8 + " {%Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3}, %Rb64_1, %Rb64_2, 1;", ""},
	{wgS8 + " {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3}, {%Rs32_4, %Rs32_5, %Rs32_6, %Rs32_7}, %Rb64_2, 1;", ""},
	{wgS8 + " {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3}, {%Rf32_4, %Rf32_5, %Rf32_6, %Rf32_7}, %Rb64_2, 1;", ""},
	{"wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, {%Rb32_4, %Rb32_5, %Rb32_6, %Rb32_7}, %Rb64_2, 1, 1, 1;", ""},
	{wgSpF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, %Ru32_1, 0, 1, 1, 1, 0, 0;", ""},
	{wgSpF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, %Rf32_4, 0, 1, 1, 1, 0, 0;", ""},

	{wgF16 + " {%Rs32_0, %Rs32_1, %Rs32_2, %Rs32_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-type"},
	{wgF16 + " {%Ru32_0, %Ru32_1, %Ru32_2, %Ru32_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-type"},
	{wgF16 + " {%Rf16x2_0, %Rf16x2_1, %Rf16x2_2, %Rf16x2_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-type"},
	{wgF16 + " {%Rb64_3, %Rb64_4, %Rb64_5, %Rb64_6}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-type"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-count"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3, %Rf32_4}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-count"},
	{wgF16 + " %Rf32_0, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-kind"},
	{wgF16 + " {%Rf32_0, _, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-kind"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, 0f00000000}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-kind"},
	{"wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%Rf32_0, %Rf32_1}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-type"},
	{"wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%Ru32_0, %Ru32_1}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-type"},
	{"wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%Rf16_0, %Rf16_1}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-type"},
	{"wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-count"},
	{"wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-count"},
	{wgS8 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, 1;", "operand-type"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, {%Rf32_4, %Rf32_5, %Rf32_6, %Rf32_7}, %Rb64_2, 1, 1, 1, 0;", "operand-type"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, {%Ru32_4, %Ru32_5, %Ru32_6, %Ru32_7}, %Rb64_2, 1, 1, 1, 0;", "operand-type"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, {%Rb32_4, %Rb32_5, %Rb32_6}, %Rb64_2, 1, 1, 1, 0;", "operand-count"},
	{"wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, {%Rf32_4, %Rf32_5, %Rf32_6, %Rf32_7}, %Rb64_2, 1, 1, 1;", "operand-type"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb32_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-type"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb32_2, 1, 1, 1, 0, 0;", "operand-type"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rf32_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-type"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, %Rb32_1, 1, 1, 0, 0;", "operand-type"},
	{wgSpF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, %Rb64_3, 0, 1, 1, 1, 0, 0;", "operand-type"},
	{wgSpF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, 5, 0, 1, 1, 1, 0, 0;", "operand-kind"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, 1;", "operand-count"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0;", "operand-count"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, {%Rb32_4, %Rb32_5, %Rb32_6, %Rb32_7}, %Rb64_2, 1, 1, 1, 0, 0;", "operand-count"},
	{"wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, 1, 1, 1, 0, 0;", "operand-count"},
	{wgS8 + " {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3}, %Rb64_1, %Rb64_2, 1, 1, 1;", "operand-count"},
	{wgS8 + " {%Rb32_0, %Rb32_1, %Rb32_2, %Rb32_3}, %Rb64_1, %Rb64_2;", "operand-count"},
	{wgSpF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, %Rb64_2, %Rb32_1, 0, 1, 1, 1, 0;", "operand-count"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, [%Rb64_1], %Rb64_2, 1, 1, 1, 0, 0;", "operand-kind"},
	{wgF16 + " {%Rf32_0, %Rf32_1, %Rf32_2, %Rf32_3}, %Rb64_1, gb, 1, 1, 1, 0, 0;", "operand-kind"},
}

const (
	wgF16   = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"
	wgS8    = "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8"
	wgSpF16 = "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16"
)

// TestWgmmaOperands holds check to the recorded verdicts.
func TestWgmmaOperands(t *testing.T) { checkRecordedVerdicts(t, wgmmaOperandCases) }

// TestWgmmaOperandsPtxas asks ptxas 12.5 again for every case.
func TestWgmmaOperandsPtxas(t *testing.T) { askPtxasAgain(t, wgmmaOperandCases) }
