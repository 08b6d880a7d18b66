package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/internal/tensorcore"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// tcCpKernel is tcMMAKernel with its MMAs replaced by one tcgen05.cp of
// form (the qualifiers after .cta_group::1) to the allocation's address
// plus off (lane << 16 | column), descriptor %rd8; the kernel then loads
// 128 lanes × 64 columns and stores them.
func tcCpKernel(t *testing.T, form string, off int) string {
	t.Helper()
	src := fmt.Sprintf(tcMMAKernel, "kind::f16", "kind::f16")
	for _, r := range [][2]string{
		{"\ttcgen05.mma.cta_group::1.kind::f16 [%r11], %rd8, %rd12, %r14, %p4;\n", fmt.Sprintf("\ttcgen05.cp.cta_group::1.%s [%%r11+%d], %%rd8;\n", form, off)},
		{"\ttcgen05.mma.cta_group::1.kind::f16 [%r11], %rd14, %rd15, %r14, %p5;\n", ""},
	} {
		if !strings.Contains(src, r[0]) {
			t.Fatalf("kernel text changed: no %q", r[0])
		}
		src = strings.Replace(src, r[0], r[1], 1)
	}
	return src
}

// cpUnpack is the 16 one-byte containers of a 16-byte chunk of packed
// elements of bits 6 or 4: element i is bits bits·i.. of the chunk read
// as a little-endian 128-bit number; a 4-bit element sits at bits 2-5.
func cpUnpack(chunk []byte, bits int) []byte {
	lo, hi := binary.LittleEndian.Uint64(chunk), binary.LittleEndian.Uint64(chunk[8:])
	out := make([]byte, 16)
	for i := range 16 {
		pos := bits * i
		var v uint64
		switch {
		case pos >= 64:
			v = hi >> (pos - 64)
		case pos+bits > 64:
			v = lo>>pos | hi<<(64-pos)
		default:
			v = lo >> pos
		}
		v &= 1<<bits - 1
		if bits == 4 {
			v <<= 2
		}
		out[i] = byte(v)
	}
	return out
}

// TestTcgen05CpShapes copies random bytes with every tcgen05.cp shape,
// multicast and decompression form and checks every one of the 128 × 64
// cells the kernel reads back: the copied rows where the form puts them
// (computed here from the form's description), zero everywhere else.
func TestTcgen05CpShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 9))
	// lanes(row) for each form, relative to the destination's lane
	direct := func(row int) []int { return []int{row} }
	pairs := func(first, second []int) func(int) []int {
		return func(row int) []int {
			ws := first
			if row >= 32 {
				ws = second
			}
			return []int{32*ws[0] + row%32, 32*ws[1] + row%32}
		}
	}
	for _, c := range []struct {
		form           string
		rows, rowBytes int
		lane, col      int
		lanes          func(int) []int
		bits           int
		cfg            Config
	}{
		{"128x128b", 128, 16, 0, 8, direct, 0, Config{}},
		{"128x256b.b8x16.b6x16_p32", 128, 32, 0, 0, direct, 6, Config{Async: AsyncDelayed}},
		{"128x128b.b8x16.b4x16_p64", 128, 16, 0, 4, direct, 4, Config{}},
		{"4x256b", 4, 32, 37, 16, direct, 0, Config{Async: AsyncDelayed}},
		{"32x128b.warpx4", 32, 16, 0, 12, func(row int) []int { return []int{row, 32 + row, 64 + row, 96 + row} }, 0, Config{}},
		{"64x128b.warpx2::02_13", 64, 16, 0, 20, pairs([]int{0, 1}, []int{2, 3}), 0, Config{Async: AsyncDelayed}},
		{"64x128b.warpx2::01_23", 64, 16, 0, 32, pairs([]int{0, 2}, []int{1, 3}), 0, Config{}},
	} {
		t.Run(c.form, func(t *testing.T) {
			const n = 64
			rows := make([]byte, c.rows*c.rowBytes)
			for i := range rows {
				rows[i] = byte(r.IntN(256))
			}
			lbo, sbo := 128, 256
			img := make([]byte, 32768)
			for row := range c.rows {
				for b := range c.rowBytes {
					img[kMajorByte(row, b, 0, lbo, sbo)] = rows[row*c.rowBytes+b]
				}
			}
			hi := uint64(lbo>>4)<<16 | uint64(sbo>>4)<<32 | 1<<46
			cfg := c.cfg
			cfg.Block = dims(128, 1, 1)
			res := launch(t, tcCpKernel(t, c.form, c.lane<<16|c.col), cfg, Arg{IsBuffer: true, Buffer: img}, buf(4*128*n),
				scalar(hi), scalar(0), scalar(0), scalar(16384))
			got := u32s(res.Buffers[1].Data)
			want := make([]uint32, 128*n)
			for row := range c.rows {
				data := rows[row*c.rowBytes : (row+1)*c.rowBytes]
				if c.bits != 0 {
					var un []byte
					for off := 0; off < len(data); off += 16 {
						un = append(un, cpUnpack(data[off:off+16], c.bits)...)
					}
					data = un
				}
				for _, ln := range c.lanes(row) {
					for col := range c.rowBytes / 4 {
						want[(c.lane+ln)*n+c.col+col] = binary.LittleEndian.Uint32(data[4*col:])
					}
				}
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("cell (lane %d, column %d) = %#08x, want %#08x", i/n, i%n, got[i], want[i])
				}
			}
		})
	}
}

// TestTcgen05CpForms: the qualifier pairings the manual requires are
// decode errors, and a .4x256b copy past lane 127 is reported.
func TestTcgen05CpForms(t *testing.T) {
	for form, msg := range map[string]string{
		"64x128b":               "needs .warpx2::02_13 or .warpx2::01_23",
		"32x128b.warpx2::01_23": "needs .warpx4",
		"128x128b.warpx4":       "goes with .64x128b",
		"128x256b.b6x16_p32":    "decompression takes both",
		"128x256b.b8x16":        "decompression takes both",
	} {
		src := tcCpKernel(t, form, 0)
		m, errs := parser.ParseString("cp.ptx", src)
		if errs.HasErrors() {
			t.Fatalf("%s: parse: %v", form, errs)
		}
		if _, errs := Decode(m, ""); !errs.HasErrors() || !strings.Contains(errs[0].Message, msg) {
			t.Errorf("%s: decode diagnostics %v, want %q", form, errs, msg)
		}
	}
	cfg := Config{Block: dims(128, 1, 1)}
	res := launchReport(t, tcCpKernel(t, "4x256b", 126<<16), cfg, Arg{IsBuffer: true, Buffer: make([]byte, 32768)}, buf(4*128*64),
		scalar(0), scalar(0), scalar(0), scalar(16384))
	wantReport(t, res, string(tmem.RuleLaneQuarter), "lanes 126-129")
}

// TestTcgen05MMANarrowATMEM stages a 6- or 4-bit A of .kind::f8f6f4 in
// Tensor Memory the way a kernel does, with tcgen05.cp's decompression
// (.b8x16.b6x16_p32, .b8x16.b4x16_p64) from the packed shared-memory
// layout into 8-bit containers, and multiplies it from there: D is A·B + C
// computed here from the formats' definitions.
func TestTcgen05MMANarrowATMEM(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 6))
	codes := map[tensorcore.Format]int{tensorcore.E4M3: 0, tensorcore.E2M3: 3, tensorcore.E3M2: 4, tensorcore.E2M1: 5}
	for _, p := range [][2]tensorcore.Format{{tensorcore.E3M2, tensorcore.E4M3}, {tensorcore.E2M1, tensorcore.E2M3}} {
		c := &narrowCase{kind: "kind::f8f6f4", a: p[0], b: p[1], k: 32, idesc: tcIdescOf(1, codes[p[0]], codes[p[1]], 128, 64)}
		t.Run(tensorcore.Name(p[0])+"."+tensorcore.Name(p[1]), func(t *testing.T) {
			exactNarrowCase(r, c)
			fmtQ := map[int]string{6: "b8x16.b6x16_p32", 4: "b8x16.b4x16_p64"}[tensorcore.ElemBits(c.a)]
			src := tcNarrowSource(c.kind, false)
			for _, rep := range [][2]string{
				{"\tsetp.eq.u32 %p4, %r1, 0;\n", "\tsetp.eq.u32 %p4, %r1, 0;\n\tadd.u32 %r32, %r11, 80;\n\ttcgen05.cp.cta_group::1.128x256b." + fmtQ + " [%r32], %rd8;\n"},
				{"[%r11], %rd8, %rd12,", "[%r11], [%r32], %rd12,"},
			} {
				if !strings.Contains(src, rep[0]) {
					t.Fatalf("kernel text changed: no %q", rep[0])
				}
				src = strings.Replace(src, rep[0], rep[1], 1)
			}
			out := runNarrowSource(t, c, src, Config{Async: AsyncDelayed})
			for i := range 128 {
				for j := range 64 {
					if got, want := math.Float32frombits(out[i*64+j]), expectNarrow(c, i, j); float64(got) != want {
						t.Fatalf("D[%d][%d] = %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
}

// TestTcgen05CpPair: tcgen05.cp.cta_group::2.128x256b issued by rank 0 of
// a CTA pair copies each CTA's own shared-memory matrix (the descriptor's
// offset in each CTA) to its own Tensor Memory; both CTAs read the cells
// back after the multicast commit. Eager and delayed.
func TestTcgen05CpPair(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 41))
	const k = 32 // f16 elements per row staged; the copy takes the first 32 bytes
	_, Ab := smallF16(r, 256*k)
	B := make([]uint64, 64*k)
	src := tcPairKernel("kind::f16")
	for _, rep := range [][2]string{
		{"\ttcgen05.mma.cta_group::2.kind::f16 [%r11], %rd8, %rd12, %r14, %p4;\n", "\ttcgen05.cp.cta_group::2.128x256b [%r11], %rd8;\n"},
		{"\ttcgen05.mma.cta_group::2.kind::f16 [%r11], %rd14, %rd15, %r14, %p5;\n", ""},
	} {
		if !strings.Contains(src, rep[0]) {
			t.Fatalf("kernel text changed: no %q", rep[0])
		}
		src = strings.Replace(src, rep[0], rep[1], 1)
	}
	for _, cfg := range []Config{{}, {Async: AsyncDelayed}} {
		res, out := runTcPairSource(t, src, 0, 2, Ab, B, cfg)
		if res.Report != nil {
			t.Fatalf("report: %v", res.Report)
		}
		for v := range 2 {
			for lane := range 128 {
				for col := range 64 {
					want := uint32(0)
					if col < 8 {
						row := (128*v + lane) * k
						want = uint32(Ab[row+2*col]) | uint32(Ab[row+2*col+1])<<16
					}
					if got := out[(128*v+lane)*64+col]; got != want {
						t.Fatalf("%v: CTA %d lane %d column %d = %#x, want %#x", cfg.Async, v, lane, col, got, want)
					}
				}
			}
		}
	}
}
