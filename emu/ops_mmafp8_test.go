package emu

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
)

// mmaFP8Kernel: every lane loads A (4 words), B (2) and C (4 f32) from
// in[lane*64 ...], runs mma.m16n8k32.f32.e4m3.e4m3.f32 and stores D to
// out[lane*16 ...].
func mmaFP8Kernel(target string) string {
	return `.version 8.5
.target ` + target + `
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
	.reg .b32 %a<4>, %b<2>, %r<2>;
	.reg .f32 %c<4>, %d<4>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r0, %laneid;
	mul.wide.u32 %rd3, %r0, 64;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.v4.b32 {%a0, %a1, %a2, %a3}, [%rd4];
	ld.global.v2.b32 {%b0, %b1}, [%rd4+16];
	ld.global.v4.f32 {%c0, %c1, %c2, %c3}, [%rd4+32];
	mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};
	mul.wide.u32 %rd3, %r0, 16;
	add.u64 %rd5, %rd2, %rd3;
	st.global.v4.f32 [%rd5], {%d0, %d1, %d2, %d3};
	ret;
}
`
}

// TestMmaFP8Sm90Lowering runs an FP8 mma.sync whose every D element is
// 2^24 + 1·1 (k 0, the first f16 half) + 1·1 (k 2, the second half). On
// sm_90 ptxas lowers the instruction to two f16 MMAs whose results are
// added together before C (see readFP8Lowering): 2^24 + 2. On sm_89 the
// FP8 tensor-core operation keeps 13 fraction bits below 2^24 and drops
// both products: 2^24.
func TestMmaFP8Sm90Lowering(t *testing.T) {
	in := make([]byte, 32*64)
	for l := range 32 {
		w := in[l*64:]
		if l%4 == 0 { // threadID_in_group 0 holds k 0-3 of rows g, g+8 (a0, a1) and of column g (b0)
			for _, off := range []int{0, 4, 16} {
				binary.LittleEndian.PutUint32(w[off:], 0x00380038) // e4m3 1.0 at bytes 0 and 2: k 0 and k 2
			}
		}
		for i := range 4 {
			binary.LittleEndian.PutUint32(w[32+4*i:], math.Float32bits(0x1p24))
		}
	}
	for _, c := range []struct {
		target string
		want   float32
	}{{"sm_90", 0x1p24 + 2}, {"sm_89", 0x1p24}} {
		res := launch(t, mmaFP8Kernel(c.target), Config{Block: dims(32, 1, 1)}, Arg{IsBuffer: true, Buffer: in}, buf(32*16))
		for i, v := range u32s(res.Buffers[1].Data) {
			if got := math.Float32frombits(v); got != c.want {
				t.Fatalf("%s: D word %d = %v, want %v", c.target, i, got, c.want)
			}
		}
	}
	readFP8Lowering(t)
}

// readFP8Lowering compiles the kernel for sm_90 with ptxas and checks the
// SASS sequence internal/tensorcore models: F2FP conversions of the two
// halves of every FP8 register, two HMMA.16816.F32 with a zero
// accumulator, then FADDs of the two HMMA results, each followed (in data
// flow) by an FADD of that sum with C.
func readFP8Lowering(t *testing.T) {
	ptxas, cuobjdump := oracle.Ptxas(), oracle.Tool(oracle.Default, "cuobjdump")
	if ptxas == "" || cuobjdump == "" {
		t.Log(oracle.SkipMessage + " (the SASS of the sm_90 lowering is not read)")
		return
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "fp8.ptx"), filepath.Join(dir, "fp8.cubin")
	if err := os.WriteFile(src, []byte(mmaFP8Kernel("sm_90")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(ptxas, "-arch=sm_90", src, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("ptxas: %v\n%s", err, out)
	}
	out, err := exec.Command(cuobjdump, "-sass", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("cuobjdump: %v\n%s", err, out)
	}
	inst := regexp.MustCompile(`/\*[0-9a-f]{4}\*/\s+([A-Z0-9_.]+)\s*([^;]*);`)
	reg := regexp.MustCompile(`^R(\d+)`)
	kind := map[int]string{} // register -> what it holds
	var unpack, hmma, halves, total int
	for _, m := range inst.FindAllStringSubmatch(string(out), -1) {
		op, args := m[1], strings.Split(m[2], ",")
		for i := range args {
			args[i] = strings.TrimSpace(args[i])
		}
		num := func(s string) int {
			if r := reg.FindStringSubmatch(s); r != nil {
				n := 0
				for _, ch := range r[1] {
					n = 10*n + int(ch-'0')
				}
				return n
			}
			return -1
		}
		switch {
		case strings.HasPrefix(op, "F2FP.F16.E4M3.UNPACK_B"):
			unpack++
		case strings.HasPrefix(op, "HMMA.16816.F32"):
			if len(args) != 4 || args[3] != "RZ" {
				t.Fatalf("HMMA with an accumulator: %s %s", op, m[2])
			}
			d := num(args[0])
			for i := range 4 {
				kind[d+i] = "hmma" + string(rune('0'+hmma))
			}
			hmma++
		case op == "FADD":
			d, x, y := num(args[0]), kind[num(args[1])], kind[num(args[2])]
			switch {
			case x != y && strings.HasPrefix(x, "hmma") && strings.HasPrefix(y, "hmma"):
				kind[d] = "halves"
				halves++
			case (x == "halves") != (y == "halves") && !strings.Contains(x+y, "hmma"):
				kind[d] = "total"
				total++
			default:
				t.Fatalf("FADD %s: operands %q and %q are not (HMMA 0 result + HMMA 1 result) or (C + their sum)", m[2], x, y)
			}
		default:
			if d := num(strings.Fields(m[2] + " x")[0]); d >= 0 && op != "STG.E.128" {
				delete(kind, d)
			}
		}
	}
	if unpack != 12 || hmma != 2 || halves != 4 || total != 4 {
		t.Fatalf("sm_90 SASS: %d F2FP.F16.E4M3.UNPACK_B (want 12: both halves of 4 A and 2 B registers), %d HMMA.16816.F32 (2), %d FADD of the halves (4), %d FADD to C (4)\n%s", unpack, hmma, halves, total, out)
	}
}
