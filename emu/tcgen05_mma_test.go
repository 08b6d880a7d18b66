package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/tensorcore"
)

// kMajorByte is the byte offset of byte b of row r of a K-major operand in
// the canonical layouts (see canonicalKMajor): w is the swizzle width in
// bytes (0: none, 8×16-byte core matrices, lbo along K, sbo per 8 rows).
func kMajorByte(r, b, w, lbo, sbo int) int {
	if w == 0 {
		return (r/8)*sbo + (b/16)*lbo + (r%8)*16 + b%16
	}
	atom := b / w // a second atom along K (32B swizzle) lies tcAtomK bytes on
	b %= w
	chunk := (b / 16) ^ map[int]int{32: r % 8 / 4, 64: r % 8 / 2, 128: r % 8}[w]
	return atom*tcAtomK + (r/8)*sbo + (r%8)*w + chunk*16 + b%16
}

// tcAtomK is the distance of the second K atom of a 32-byte swizzled
// operand, the same in A and B so one descriptor advance serves both.
const tcAtomK = 8192

// tcIdescOf encodes an instruction descriptor as CUTLASS's UMMA::InstrDescriptor does.
func tcIdescOf(dtype, atype, btype, m, n int) uint32 {
	return uint32(dtype)<<4 | uint32(atype)<<7 | uint32(btype)<<10 | uint32(n>>3)<<17 | uint32(m>>4)<<24
}

// runTcMMA stages A (128×2k elements of size bytes, by row) and B (64×2k,
// by column of D) with swizzle width w, runs tcMMAKernel and returns D.
func runTcMMA(t *testing.T, kind string, idesc uint32, w, size int, A, B []uint64, cfg Config) []uint32 {
	t.Helper()
	return runTcMMAFrom(t, kind, idesc, w, size, A, B, cfg, false)
}

// tcStageA replaces the A descriptors of tcMMAKernel with A in Tensor
// Memory: the kernel allocates 128 columns, every thread loads row tid of
// A (64 bytes, row-major at the start of shared memory) and stores it with
// tcgen05.st.32x32b.x16 to columns 64-79 of its lane; the MMAs read A from
// columns 64 and 72.
func tcStageA(src string) string {
	const stage = `	mov.u32 %r40, smem;
	mad.lo.u32 %r41, %r1, 64, %r40;
	ld.shared.v4.b32 {%r42, %r43, %r44, %r45}, [%r41];
	ld.shared.v4.b32 {%r46, %r47, %r48, %r49}, [%r41+16];
	ld.shared.v4.b32 {%r50, %r51, %r52, %r53}, [%r41+32];
	ld.shared.v4.b32 {%r54, %r55, %r56, %r57}, [%r41+48];
	shl.b32 %r58, %r7, 21;
	add.u32 %r59, %r11, %r58;
	add.u32 %r59, %r59, 64;
	tcgen05.st.sync.aligned.32x32b.x16.b32 [%r59], {%r42, %r43, %r44, %r45, %r46, %r47, %r48, %r49, %r50, %r51, %r52, %r53, %r54, %r55, %r56, %r57};
	tcgen05.wait::st.sync.aligned;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	add.u32 %r30, %r11, 64;
	add.u32 %r31, %r11, 72;
	@!%p3 bra WAIT;
`
	src = strings.Replace(src, "\t@!%p3 bra WAIT;\n", stage, 1)
	src = strings.Replace(src, "mov.u32 %r9, 64;", "mov.u32 %r9, 128;", 1)
	src = strings.Replace(src, "[%r11], %rd8,", "[%r11], [%r30],", 1)
	return strings.Replace(src, "[%r11], %rd14,", "[%r11], [%r31],", 1)
}

// runTcMMAFrom is runTcMMA with A in Tensor Memory when aTMEM is set.
func runTcMMAFrom(t *testing.T, kind string, idesc uint32, w, size int, A, B []uint64, cfg Config, aTMEM bool) []uint32 {
	t.Helper()
	src := fmt.Sprintf(tcMMAKernel, kind, kind)
	if aTMEM {
		src = tcStageA(src)
	}
	res := runTcMMASource(t, src, idesc, w, size, A, B, cfg, aTMEM)
	if res.Report != nil {
		t.Fatalf("unexpected report: %v", res.Report)
	}
	return u32s(res.Buffers[1].Data)
}

// runTcMMASource stages A and B as runTcMMAFrom does and runs src, a form
// of tcMMAKernel.
func runTcMMASource(t *testing.T, src string, idesc uint32, w, size int, A, B []uint64, cfg Config, aTMEM bool) *Result {
	t.Helper()
	const m, n, boff = 128, 64, 16384
	kb := 2 * tcKBytes   // bytes of K over both MMAs
	lbo, sbo := 128, 512 // 4 core matrices of 16 bytes along K per 8 rows
	kadv := uint64(2 * lbo >> 4)
	code := map[int]uint64{0: 0, 32: 6, 64: 4, 128: 2}[w]
	if w != 0 {
		lbo, sbo, kadv = 16, 8*w, uint64(tcKBytes>>4)
	}
	if w == 32 {
		kadv = tcAtomK >> 4
	}
	img := make([]byte, 32768)
	put := func(off int, v uint64) {
		switch size {
		case 4:
			binary.LittleEndian.PutUint32(img[off:], uint32(v))
		case 2:
			binary.LittleEndian.PutUint16(img[off:], uint16(v))
		default:
			img[off] = byte(v)
		}
	}
	ke := kb / size
	for r := range m {
		for kk := range ke {
			if aTMEM {
				put(r*kb+kk*size, A[r*ke+kk])
			} else {
				put(kMajorByte(r, kk*size, w, lbo, sbo), A[r*ke+kk])
			}
		}
	}
	for c := range n {
		for kk := range ke {
			put(boff+kMajorByte(c, kk*size, w, lbo, sbo), B[c*ke+kk])
		}
	}
	hi := uint64(lbo>>4)<<16 | uint64(sbo>>4)<<32 | 1<<46 | code<<61
	cfg.Block = dims(128, 1, 1)
	return launchReport(t, src, cfg, Arg{IsBuffer: true, Buffer: img}, buf(4*m*n),
		scalar(hi), scalar(kadv), scalar(uint64(idesc)), scalar(boff))
}

// TestTcgen05MMAF16: f16 and bf16 inputs, f32 and f16 accumulators, every
// swizzle mode and async policy, on small integers whose products and sums
// are exact in any model, against A·B computed here.
func TestTcgen05MMAF16(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const m, n, k = 128, 64, 32
	type tc struct {
		name         string
		dtype, atype int
		w            int
		cfg          Config
	}
	cases := []tc{
		{"f32.f16/none", 1, 0, 0, Config{}},
		{"f32.f16/128B/delayed", 1, 0, 128, Config{Async: AsyncDelayed}},
		{"f32.bf16/64B/random", 1, 1, 64, Config{Async: AsyncRandom, Seed: 3}},
		{"f16.f16/32B", 0, 0, 32, Config{}},
		{"f32.f16/128B/race detector", 1, 0, 128, Config{Race: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			A, B := make([]int, m*k), make([]int, n*k)
			for i := range A {
				A[i] = r.IntN(9) - 4
			}
			for i := range B {
				B[i] = r.IntN(9) - 4
			}
			enc := func(v int) uint64 {
				if c.atype == 1 {
					return uint64(math.Float32bits(float32(v)) >> 16)
				}
				return uint64(fbits("f16", v))
			}
			Ab, Bb := make([]uint64, len(A)), make([]uint64, len(B))
			for i, v := range A {
				Ab[i] = enc(v)
			}
			for i, v := range B {
				Bb[i] = enc(v)
			}
			out := runTcMMA(t, "kind::f16", tcIdescOf(c.dtype, c.atype, c.atype, m, n), c.w, 2, Ab, Bb, c.cfg)
			for i := range m {
				for j := range n {
					want := 0
					for kk := range k {
						want += A[i*k+kk] * B[j*k+kk]
					}
					got := float64(math.Float32frombits(out[i*n+j]))
					if c.dtype == 0 {
						got = float64(tensorcoreF16(out[i*n+j]))
					}
					if got != float64(want) {
						t.Fatalf("D[%d][%d] = %v (%#x), want %d", i, j, got, out[i*n+j], want)
					}
				}
			}
		})
	}
}

// tensorcoreF16 is the value of the f16 in the low 16 bits of v.
func tensorcoreF16(v uint32) float32 {
	h := v & 0xffff
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	e, f := int(h>>10&31), float64(h&1023)
	if e == 0 {
		return sign * float32(math.Ldexp(f, -24))
	}
	return sign * float32(math.Ldexp(1024+f, e-25))
}

// TestTcgen05MMAF16Model: random f16 data (rounding in every block) gives
// the bits of the Blackwell model applied as two chained MMAs.
func TestTcgen05MMAF16Model(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const m, n, k = 128, 64, 32
	A, B := make([]uint64, m*k), make([]uint64, n*k)
	for i := range A {
		A[i] = uint64(math.Float32bits(float32(r.NormFloat64())) >> 16) // bf16
	}
	for i := range B {
		B[i] = uint64(math.Float32bits(float32(r.NormFloat64())) >> 16)
	}
	out := runTcMMA(t, "kind::f16", tcIdescOf(1, 1, 1, m, n), 128, 2, A, B, Config{})
	half := func(x []uint64, rows int, h int) []uint64 {
		o := make([]uint64, rows*16)
		for i := range rows {
			copy(o[i*16:], x[i*k+16*h:i*k+16*h+16])
		}
		return o
	}
	D := make([]uint64, m*n)
	for h := range 2 {
		tensorcore.Blackwell.MMA(&tensorcore.Problem{Kind: tensorcore.Async, In: tensorcore.BF16, Out: tensorcore.F32,
			M: m, N: n, K: 16, A: half(A, m, h), B: half(B, n, h), C: append([]uint64(nil), D...), D: D})
	}
	for i := range D {
		if uint32(D[i]) != out[i] {
			t.Fatalf("D[%d][%d] = %#x, want %#x", i/n, i%n, out[i], D[i])
		}
	}
}

// TestTcgen05MMAI8: s8 × u8 and s8 × s8 with s32 accumulators, exact,
// against A·B computed here.
func TestTcgen05MMAI8(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const m, n, k = 128, 64, 64
	for _, c := range []struct {
		atype, btype, w int
	}{{1, 0, 0}, {1, 1, 128}, {0, 0, 64}} {
		t.Run(fmt.Sprintf("a%d.b%d.w%d", c.atype, c.btype, c.w), func(t *testing.T) {
			A, B := make([]uint64, m*k), make([]uint64, n*k)
			for i := range A {
				A[i] = uint64(r.IntN(256))
			}
			for i := range B {
				B[i] = uint64(r.IntN(256))
			}
			val := func(v uint64, signed int) int64 {
				if signed == 1 {
					return int64(int8(v))
				}
				return int64(v)
			}
			out := runTcMMA(t, "kind::i8", tcIdescOf(2, c.atype, c.btype, m, n), c.w, 1, A, B, Config{Async: AsyncDelayed})
			for i := range m {
				for j := range n {
					var want int64
					for kk := range k {
						want += val(A[i*k+kk], c.atype) * val(B[j*k+kk], c.btype)
					}
					if int32(out[i*n+j]) != int32(want) {
						t.Fatalf("D[%d][%d] = %d, want %d", i, j, int32(out[i*n+j]), want)
					}
				}
			}
		})
	}
}

// TestTcgen05MMATF32: tf32 inputs (K = 8 per MMA) on small integers.
func TestTcgen05MMATF32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const m, n, k = 128, 64, 16
	A, B := make([]int, m*k), make([]int, n*k)
	Ab, Bb := make([]uint64, m*k), make([]uint64, n*k)
	for i := range A {
		A[i] = r.IntN(9) - 4
		Ab[i] = uint64(math.Float32bits(float32(A[i])))
	}
	for i := range B {
		B[i] = r.IntN(9) - 4
		Bb[i] = uint64(math.Float32bits(float32(B[i])))
	}
	out := runTcMMA(t, "kind::tf32", tcIdescOf(1, 2, 2, m, n), 0, 4, Ab, Bb, Config{})
	for i := range m {
		for j := range n {
			want := 0
			for kk := range k {
				want += A[i*k+kk] * B[j*k+kk]
			}
			if got := math.Float32frombits(out[i*n+j]); got != float32(want) {
				t.Fatalf("D[%d][%d] = %v, want %d", i, j, got, want)
			}
		}
	}
}

// TestTcgen05IdescDecode: the fields of the instruction descriptor, and
// the values the manual does not allow.
func TestTcgen05IdescDecode(t *testing.T) {
	good := []struct {
		kind   tcKind
		v      uint32
		m, n   int
		out    tensorcore.Format
		a, b   tensorcore.Format
		signed [2]bool
		negA   bool
	}{
		{tcKindF16, tcIdescOf(1, 0, 0, 128, 64), 128, 64, tensorcore.F32, tensorcore.F16, tensorcore.F16, [2]bool{}, false},
		{tcKindF16, tcIdescOf(0, 0, 0, 64, 256), 64, 256, tensorcore.F16, tensorcore.F16, tensorcore.F16, [2]bool{}, false},
		{tcKindF16, tcIdescOf(1, 1, 1, 128, 8) | 1<<13, 128, 8, tensorcore.F32, tensorcore.BF16, tensorcore.BF16, [2]bool{}, true},
		{tcKindTF32, tcIdescOf(1, 2, 2, 64, 128), 64, 128, tensorcore.F32, tensorcore.TF32, tensorcore.TF32, [2]bool{}, false},
		{tcKindI8, tcIdescOf(2, 1, 0, 128, 16), 128, 16, tensorcore.F32, tensorcore.E4M3, tensorcore.E4M3, [2]bool{true, false}, false},
	}
	for _, g := range good {
		x, err := decodeIdesc(g.kind, g.v)
		if err != nil {
			t.Errorf("%s %#x: %v", g.kind, g.v, err)
			continue
		}
		if x.m != g.m || x.n != g.n || x.out != g.out || x.a != g.a || x.b != g.b || x.signed != g.signed || x.negA != g.negA {
			t.Errorf("%s %#x: decoded %+v", g.kind, g.v, x)
		}
		if want := map[tcKind]int{tcKindF16: 16, tcKindTF32: 8, tcKindI8: 32}[g.kind]; x.k != want {
			t.Errorf("%s: K = %d, want %d", g.kind, x.k, want)
		}
	}
	bad := []struct {
		kind        tcKind
		v           uint32
		msg         string
		unsupported bool
	}{
		{tcKindF16, tcIdescOf(1, 0, 0, 128, 64) | 1<<2, "sparsity bit", false},
		{tcKindF16, tcIdescOf(1, 0, 0, 128, 64) | 1, "sparsity selector", false},
		{tcKindF16, tcIdescOf(1, 0, 0, 128, 64) | 1<<23, "reserved bit", false},
		{tcKindF16, tcIdescOf(1, 0, 0, 128, 64) | 1<<30, "B-reuse", false},
		{tcKindF16, tcIdescOf(1, 0, 0, 128, 64) | 1<<3, "saturate", false},
		{tcKindF16, tcIdescOf(1, 0, 1, 128, 64), "mixes", false},
		{tcKindF16, tcIdescOf(0, 1, 1, 128, 64), "f16 D", false},
		{tcKindF16, tcIdescOf(2, 0, 0, 128, 64), "dtype", false},
		{tcKindF16, tcIdescOf(1, 3, 3, 128, 64), "atype", false},
		{tcKindF16, tcIdescOf(1, 0, 0, 32, 64), "M = 32", false},
		{tcKindF16, tcIdescOf(1, 0, 0, 256, 64), "M = 256", false},
		{tcKindF16, tcIdescOf(1, 0, 0, 128, 0), "N = 0", false},
		{tcKindTF32, tcIdescOf(1, 0, 0, 128, 64), ".kind::tf32 needs", false},
		{tcKindI8, tcIdescOf(1, 1, 1, 128, 64), "s32", false},
		{tcKindI8, tcIdescOf(2, 1, 1, 128, 64) | 1<<14, "does not negate", false},
		{tcKindF8F6F4, tcIdescOf(1, 5, 0, 128, 64) | 1<<15, "transposes A (bit 15) of e2m1", false},
	}
	for _, b := range bad {
		_, err := decodeIdesc(b.kind, b.v)
		if err == nil || !strings.Contains(err.Error(), b.msg) || err.(*idescError).unsupported != b.unsupported {
			t.Errorf("%s %#x: error %v, want %q (unsupported %v)", b.kind, b.v, err, b.msg, b.unsupported)
		}
	}
}

// TestTcgen05MMAReports: an invalid instruction descriptor, an unsupported
// swizzle mode and D outside the allocation stop the run with a report at
// the tcgen05.mma.
func TestTcgen05MMAReports(t *testing.T) {
	const m, n = 128, 64
	for _, c := range []struct {
		name, kind string
		idesc      uint32
		hiOr       uint64
		rule, msg  string
	}{
		{"idesc", "kind::f16", tcIdescOf(1, 0, 0, 128, 64) | 1<<2, 0, ruleTcgen05Idesc, "sparsity bit"},
		{"swizzle invalid", "kind::f16", tcIdescOf(1, 0, 0, 128, 64), 3 << 61, ruleTcgen05Idesc, "invalid"},
		{"D beyond allocation", "kind::f16", tcIdescOf(1, 0, 0, 128, 128), 0, "tcgen05-unallocated", "not allocated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := make([]byte, 32768)
			hi := uint64(8)<<16 | uint64(16)<<32 | 1<<46 | c.hiOr
			src := fmt.Sprintf(tcMMAKernel, c.kind, c.kind)
			res := launchReport(t, src, Config{Block: dims(128, 1, 1)}, Arg{IsBuffer: true, Buffer: img}, buf(4*m*n),
				scalar(hi), scalar(2), scalar(uint64(c.idesc)), scalar(16384))
			if res.Report == nil || res.Report.Rule != c.rule || !strings.Contains(res.Report.Message, c.msg) || !strings.HasPrefix(res.Report.Opcode, "tcgen05.mma") {
				t.Fatalf("report %v, want rule %s with %q", res.Report, c.rule, c.msg)
			}
		})
	}
}

// TestTcgen05MMAShapes: A from Tensor Memory (f16 and i8), and M = 64,
// whose rows 16q..16q+15 are lanes 32q..32q+15.
func TestTcgen05MMAShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		name  string
		kind  string
		size  int
		m     int
		aTMEM bool
	}{
		{"f16/A in TMEM", "kind::f16", 2, 128, true},
		{"i8/A in TMEM", "kind::i8", 1, 128, true},
		{"f16/M64", "kind::f16", 2, 64, false},
		{"i8/M64/A in TMEM", "kind::i8", 1, 64, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n = 64
			k := 2 * tcKBytes / c.size
			A, B := make([]int, 128*k), make([]int, n*k)
			Ab, Bb := make([]uint64, len(A)), make([]uint64, len(B))
			enc := func(v int) uint64 {
				if c.size == 1 {
					return uint64(uint8(int8(v)))
				}
				return fbits("f16", v)
			}
			for i := range A {
				A[i] = r.IntN(9) - 4
				Ab[i] = enc(A[i])
			}
			for i := range B {
				B[i] = r.IntN(9) - 4
				Bb[i] = enc(B[i])
			}
			idesc := tcIdescOf(1, 0, 0, c.m, n)
			if c.size == 1 {
				idesc = tcIdescOf(2, 1, 1, c.m, n)
			}
			out := runTcMMAFrom(t, c.kind, idesc, 128, c.size, Ab, Bb, Config{Async: AsyncRandom, Seed: 5}, c.aTMEM)
			for i := range c.m {
				for j := range n {
					ar := i // A in Tensor Memory has D's rows: row i is in lane tcLane(i), staged from A's row of that number
					if c.aTMEM {
						ar = tcLane(c.m, 0, i)
					}
					want := 0
					for kk := range k {
						want += A[ar*k+kk] * B[j*k+kk]
					}
					v := out[tcLane(c.m, 0, i)*n+j]
					got := int(int32(v))
					if c.size == 2 {
						got = int(math.Float32frombits(v))
					}
					if got != want {
						t.Fatalf("D[%d][%d] = %d, want %d", i, j, got, want)
					}
				}
			}
		})
	}
}

// TestTcgen05MMAAsync: tcgen05.mma is asynchronous. Under the delayed
// policy a kernel that loads D without waiting on the commit's mbarrier
// reads Tensor Memory before the MMAs land (zeros); waiting gives D.
func TestTcgen05MMAAsync(t *testing.T) {
	const m, n = 128, 64
	img := make([]byte, 32768)
	one := uint16(fbits("f16", 1))
	for i := 0; i < len(img); i += 2 {
		binary.LittleEndian.PutUint16(img[i:], one)
	}
	hi := uint64(8)<<16 | uint64(32)<<32 | 1<<46
	src := fmt.Sprintf(tcMMAKernel, "kind::f16", "kind::f16")
	noWait := strings.Replace(src, "\tmbarrier.try_wait.parity.shared::cta.b64 %p6, [%r10], 0;\n\t@!%p6 bra WAIT;\n", "", 1)
	if noWait == src {
		t.Fatal("kernel text changed: the wait was not removed")
	}
	for _, c := range []struct {
		src  string
		want float32
	}{{src, 32}, {noWait, 0}} {
		res := launch(t, c.src, Config{Block: dims(128, 1, 1), Async: AsyncDelayed}, Arg{IsBuffer: true, Buffer: img}, buf(4*m*n),
			scalar(hi), scalar(2*8), scalar(uint64(tcIdescOf(1, 0, 0, m, n))), scalar(16384))
		if got := math.Float32frombits(u32s(res.Buffers[1].Data)[77]); got != c.want {
			t.Errorf("D[1][13] = %v, want %v", got, c.want)
		}
	}
}

// TestTcgen05Cp: tcgen05.cp.128x256b copies a 128-row × 32-byte matrix,
// described like an MMA operand (no swizzle and 128-byte swizzle), to
// lanes 0-127 and 8 columns of Tensor Memory, completed by
// tcgen05.commit; row r's bytes 4c..4c+3 are cell (r, c).
func TestTcgen05Cp(t *testing.T) {
	const m, n = 128, 64
	r := rand.New(rand.NewPCG(13, 14))
	src := strings.Replace(fmt.Sprintf(tcMMAKernel, "kind::f16", "kind::f16"),
		"\ttcgen05.mma.cta_group::1.kind::f16 [%r11], %rd8, %rd12, %r14, %p4;\n", "\ttcgen05.cp.cta_group::1.128x256b [%r11], %rd8;\n", 1)
	src = strings.Replace(src, "\ttcgen05.mma.cta_group::1.kind::f16 [%r11], %rd14, %rd15, %r14, %p5;\n", "", 1)
	if !strings.Contains(src, "tcgen05.cp") || strings.Contains(src, "tcgen05.mma") {
		t.Fatal("kernel text changed: the MMAs were not replaced")
	}
	for _, w := range []int{0, 128} {
		lbo, sbo, code := 128, 256, uint64(0)
		if w != 0 {
			lbo, sbo, code = 16, 8*w, 2
		}
		rows := make([]byte, m*32)
		for i := range rows {
			rows[i] = byte(r.IntN(256))
		}
		img := make([]byte, 32768)
		for row := range m {
			for b := range 32 {
				img[kMajorByte(row, b, w, lbo, sbo)] = rows[row*32+b]
			}
		}
		hi := uint64(lbo>>4)<<16 | uint64(sbo>>4)<<32 | 1<<46 | code<<61
		for _, cfg := range []Config{{}, {Async: AsyncDelayed}} {
			cfg.Block = dims(128, 1, 1)
			res := launch(t, src, cfg, Arg{IsBuffer: true, Buffer: img}, buf(4*m*n), scalar(hi), scalar(0), scalar(0), scalar(16384))
			out := u32s(res.Buffers[1].Data)
			for row := range m {
				for c := range 8 {
					if want := binary.LittleEndian.Uint32(rows[row*32+4*c:]); out[row*n+c] != want {
						t.Fatalf("swizzle %d: cell (%d, %d) = %#x, want %#x", w, row, c, out[row*n+c], want)
					}
				}
			}
		}
	}
}
