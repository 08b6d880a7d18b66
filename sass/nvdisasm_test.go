package sass

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
)

// cudaBin returns the path of the CUDA 12.5 tool, or skips the test.
func cudaBin(t testing.TB, tool string) string {
	p := oracle.Tool(oracle.Default, tool)
	if p == "" {
		t.Skipf("%s: %s", tool, oracle.SkipMessage)
	}
	return p
}

var nvdisasmLine = regexp.MustCompile(`/\*([0-9a-f]{4,})\*/\s*(.*?)\s*;`)

// nvdisasm disassembles a raw binary and returns the text at each address.
func nvdisasm(t testing.TB, tool string, raw []byte, arch Arch) (map[int]string, error) {
	f := filepath.Join(t.TempDir(), "code.bin")
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(tool, "--binary", arch.Nvdisasm(), f)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, stderr.String())
	}
	return nvdisasmTexts(out), nil
}

// nvdisasmTexts returns the text at each address of an nvdisasm listing,
// without dual-issue braces and with single spaces.
func nvdisasmTexts(out []byte) map[int]string {
	texts := map[int]string{}
	for _, m := range nvdisasmLine.FindAllStringSubmatch(string(out), -1) {
		addr, _ := strconv.ParseInt(m[1], 16, 64)
		s := strings.NewReplacer("{", " ", "}", " ").Replace(m[2])
		texts[int(addr)] = strings.Join(strings.Fields(s), " ")
	}
	return texts
}

// oracleCount is the number of random instructions per architecture and
// direction, all disassembled by one nvdisasm call.
func oracleCount() int {
	if testing.Short() {
		return 300
	}
	return 2000
}

// TestNvdisasmEncode encodes random valid instructions and checks that
// nvdisasm prints each one exactly as Text does.
func TestNvdisasmEncode(t *testing.T) {
	t.Parallel()
	tool := cudaBin(t, "nvdisasm")
	for _, arch := range Archs {
		t.Run(arch.String(), func(t *testing.T) {
			if !nvdisasmKnows(arch) {
				t.Skipf("nvdisasm %s does not know %s; vectors_sm90_sm120.tsv checks it", oracle.Default, arch)
			}
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(arch.SM), 1))
			insts := make([]Inst, oracleCount())
			for i := range insts {
				insts[i] = randomInst(r, arch, false)
			}
			raw, err := Options{}.MarshalRaw(insts, arch)
			if err != nil {
				t.Fatal(err)
			}
			compareOracle(t, tool, raw, arch, insts)
		})
	}
}

// TestNvdisasmDecode decodes random words that nvdisasm accepts, reserved
// bits set at random and misaligned registers included, and compares texts.
func TestNvdisasmDecode(t *testing.T) {
	t.Parallel()
	tool := cudaBin(t, "nvdisasm")
	for _, arch := range Archs {
		t.Run(arch.String(), func(t *testing.T) {
			if !nvdisasmKnows(arch) {
				t.Skipf("nvdisasm %s does not know %s; vectors_sm90_sm120.tsv checks it", oracle.Default, arch)
			}
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(arch.SM), 2))
			var raw []byte
			words := make([]Word, oracleCount())
			for i := range words {
				in := randomInst(r, arch, true)
				w, _ := lax.Encode(in, arch)
				words[i] = scrambleReserved(r, w, arch)
			}
			raw = rawWords(words, arch)
			texts, err := nvdisasm(t, tool, raw, arch)
			if err != nil {
				t.Fatalf("nvdisasm rejected the batch: %v", err)
			}
			rws, err := UnmarshalRaw(raw, arch)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i, rw := range rws {
				if i >= len(words) {
					break
				}
				in, err := DecodeRaw(rw, arch)
				want := texts[rw.Addr]
				got := ""
				if err == nil {
					got = in.Text(arch)
				}
				if got != want {
					bad++
					if bad <= 10 {
						t.Errorf("%s: Decode = %q (%v), nvdisasm %q", rw.Word.Hex(arch), got, err, want)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d words differ", bad, len(words))
			}
		})
	}
}

// scrambleReserved sets random values in the bits that w's format marks as
// ignored by nvdisasm and does not use for a field on arch.
func scrambleReserved(r *rand.Rand, w Word, arch Arch) Word {
	for i := range formats {
		f := &formats[i]
		if !f.on(arch) || w.and(f.mask) != f.value {
			continue
		}
		free := f.freeBits(arch)
		return Word{w.Lo | r.Uint64()&free.Lo, w.Hi | r.Uint64()&free.Hi}
	}
	return w
}

// rawWords lays out words with the default schedule.
func rawWords(words []Word, arch Arch) []byte {
	var b []byte
	if arch.Gen() == Turing {
		for _, w := range words {
			b = appendU64(appendU64(b, w.Lo), w.Hi)
		}
		return b
	}
	ctrl := ControlWord([3]Sched{DefaultSched, DefaultSched, DefaultSched})
	nop := formats[nopIndex(Maxwell)].value.Lo
	for i := 0; i < len(words); i += 3 {
		b = appendU64(b, ctrl)
		for k := 0; k < 3; k++ {
			w := nop
			if i+k < len(words) {
				w = words[i+k].Lo
			}
			b = appendU64(b, w)
		}
	}
	return b
}

func appendU64(b []byte, v uint64) []byte {
	for i := 0; i < 8; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

func compareOracle(t *testing.T, tool string, raw []byte, arch Arch, insts []Inst) {
	texts, err := nvdisasm(t, tool, raw, arch)
	if err != nil {
		t.Fatalf("nvdisasm rejected the batch: %v", err)
	}
	rws, _ := UnmarshalRaw(raw, arch)
	bad := 0
	for i, in := range insts {
		got, want := in.Text(arch), texts[rws[i].Addr]
		if got != want {
			bad++
			if bad <= 10 {
				t.Errorf("%s: Text = %q, nvdisasm %q", rws[i].Word.Hex(arch), got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d instructions differ", bad, len(insts))
	}
}

// TestNvdisasmRejects checks that the words Decode rejects as invalid are
// rejected by nvdisasm too (ENCODING.md T5), one word per call.
func TestNvdisasmRejects(t *testing.T) {
	t.Parallel()
	tool := cudaBin(t, "nvdisasm")
	for _, c := range []struct {
		arch int
		hex  string
	}{
		{90, "0x000fa20000000800000000ff01007388"}, // dst_wr_sb = 6
		{90, "0x000fe00000000800000000ff01007388"}, // usched_info 16
		{90, "0x040fc00000000800000000ff01007388"}, // batch 1 with usched_info 0
		{90, "0x180fe20000000800000000ff01007388"}, // batch 6
		{90, "0x000fe800081019040000040502007986"}, // STG desc[] with a 32-bit Ra
		{80, "0x000fe800081019040000040502007986"},
	} {
		arch := Arch{c.arch}
		w, err := ParseHex(c.hex, arch)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(w, arch); err == nil {
			t.Errorf("%s: Decode accepts it", c.hex)
		}
		if texts, err := nvdisasm(t, tool, rawWords([]Word{w}, arch), arch); err == nil {
			t.Errorf("%s: nvdisasm accepts it: %v", c.hex, texts)
		}
	}
}

// TestNvdisasmControlSlots checks the Maxwell control-word slot layout
// (ENCODING.md T2) through the one field nvdisasm shows: stall 0 with the
// no-yield bit pairs the instruction with the next one (dual issue), which
// nvdisasm prints in braces.
func TestNvdisasmControlSlots(t *testing.T) {
	t.Parallel()
	tool := cudaBin(t, "nvdisasm")
	arch := Arch{50}
	for k := 0; k < 2; k++ {
		insts := make([]Inst, 3)
		for i := range insts {
			insts[i] = NewInst(STS)
			insts[i].Ra, insts[i].Rb = uint8(i), uint8(i+4)
		}
		insts[k].Sched = Sched{Stall: 0, Yield: 1, Wr: 7, Rd: 7}
		raw, err := Options{}.MarshalRaw(insts, arch)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(t.TempDir(), "b.bin")
		if err := os.WriteFile(f, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(tool, "--binary", "SM50", f).Output()
		if err != nil {
			t.Fatal(err)
		}
		lines := map[int]string{}
		for _, l := range strings.Split(string(out), "\n") {
			if m := regexp.MustCompile(`/\*([0-9a-f]{4})\*/(.*)`).FindStringSubmatch(l); m != nil {
				a, _ := strconv.ParseInt(m[1], 16, 64)
				lines[int(a)] = m[2]
			}
		}
		first, second := lines[8+8*k], lines[16+8*k]
		if !strings.Contains(first, "{") || !strings.Contains(second, "}") {
			t.Errorf("dual-issue slot %d: nvdisasm printed %q / %q, want braces around instructions %d and %d", k, first, second, k, k+1)
		}
		if other := lines[8+8*((k+2)%3)]; strings.ContainsAny(other, "{}") {
			t.Errorf("slot %d: unpaired instruction printed %q", k, other)
		}
	}
}

// TestNvdisasm118 repeats the encode comparison for STS and STL with CUDA
// 11.8's nvdisasm, where it is installed beside 12.5.
func TestNvdisasm118(t *testing.T) {
	t.Parallel()
	tool := oracle.Tool("11.8", "nvdisasm")
	if tool == "" {
		t.Skip("CUDA 11.8 nvdisasm: " + oracle.SkipMessage)
	}
	for _, arch := range []Arch{{50}, {62}, {75}, {86}, {90}} {
		t.Run(arch.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(arch.SM), 4))
			insts := make([]Inst, 0, oracleCount()/4)
			for len(insts) < cap(insts) {
				// 11.8 does not print desc[URc], as with STG/ST on sm_90.
				if in := randomInst(r, arch, false); (in.Op == STS || in.Op == STL) && !in.Desc {
					insts = append(insts, in)
				}
			}
			raw, err := Options{}.MarshalRaw(insts, arch)
			if err != nil {
				t.Fatal(err)
			}
			compareOracle(t, tool, raw, arch, insts)
		})
	}
}

// freeBits returns the bits nvdisasm ignores in f on arch: those f knows
// (ignored bits, fields of other architectures) that are neither opcode
// nor a field there.
func (f *format) freeBits(arch Arch) Word {
	used := f.mask
	for _, b := range f.fieldsOn(arch) {
		used.setBits(b.lo, b.n, ^uint64(0))
	}
	return Word{f.known.Lo &^ used.Lo, f.known.Hi &^ used.Hi}
}
