package emu

import (
	"os"
	"testing"
)

func readGPURef(t *testing.T, name string) []uint32 {
	t.Helper()
	b, err := os.ReadFile(gpuRef + "/" + name)
	if err != nil {
		t.Skipf("the H100 reference set is absent: %v", err)
	}
	return u32s(b)
}

// TestReferenceDefinitionsMatchH100 checks the instruction definitions the
// tests of this package use (funnelShift, findMSB, findNthSet, dotBytes,
// ...) against what an H100 computed in the bit_ops kernel of the
// reference set (sources/warp.cu): per thread i, x = in[i], y = in[(i*7+3)
// % 1024], and out[20*i+k] holds one instruction's result.
func TestReferenceDefinitionsMatchH100(t *testing.T) {
	in := readGPURef(t, "inputs/u16k.bin")
	out := readGPURef(t, "expected/bit_ops/arg1.bin")
	const threads = 8 * 128
	if len(out) != 20*threads {
		t.Fatalf("bit_ops output has %d words", len(out))
	}
	vmaxu2 := func(x, y uint32) uint32 {
		return halves(x, y, func(a, b int64) int64 { return max(a, b) }, false)
	}
	absdiffu4 := func(x, y uint32) uint32 {
		return mergeElems(8, simd(8, x, y, false, false, func(a, b int64) int64 { return max(a-b, b-a) }))
	}
	add4 := func(x, y uint32) uint32 {
		return mergeElems(8, simd(8, x, y, false, false, func(a, b int64) int64 { return a + b }))
	}
	sadS := func(x, y uint32) uint32 {
		d := int64(int32(x)) - int64(int32(y))
		return uint32(max(d, -d))
	}
	checks := []struct {
		word int
		name string
		f    func(x, y uint32) uint32
	}{
		{1, "shf.l.wrap", func(x, y uint32) uint32 { return funnelShift(true, false, x, y, y&31) }},
		{2, "shf.r.clamp", func(x, y uint32) uint32 { return funnelShift(false, true, x, y, y&63) }},
		{10, "bfind.u32", func(x, y uint32) uint32 { return findMSB(uint64(x>>(y&31)), 32, false, false) }},
		{11, "bfind.shiftamt.s32", func(x, _ uint32) uint32 { return findMSB(uint64(x), 32, true, true) }},
		{12, "fns", func(x, y uint32) uint32 { return findNthSet(x, y&31, int32(y%9)-4) }},
		{15, "sad.u32 + sad.s32", func(x, y uint32) uint32 { return max(x, y) - min(x, y) + (x ^ y) + sadS(x, y) + 3 }},
		{16, "dp4a ^ dp2a.lo", func(x, y uint32) uint32 {
			return dotBytes(x, y, 7, false, false) ^ dotHalves(x, y, 9, false, false, false)
		}},
		{17, "vabsdiff4 ^ vadd4 ^ max.u16x2", func(x, y uint32) uint32 { return absdiffu4(x, y) ^ add4(x, y) ^ vmaxu2(x, y) }},
	}
	for _, c := range checks {
		for i := range threads {
			x, y := in[i], in[(i*7+3)%threads]
			if got, want := c.f(x, y), out[20*i+c.word]; got != want {
				t.Fatalf("%s, thread %d (x=%#x y=%#x): definition gives %#x, the H100 %#x", c.name, i, x, y, got, want)
			}
		}
	}
}
