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

// roundTripWords is the number of random words per architecture that
// TestDisasmRoundTrip decodes; PTXKIT_SASS_WORDS overrides it (the
// acceptance figure is 100000).
func roundTripWords(t *testing.T) int {
	if testing.Short() {
		return envCount(t, "PTXKIT_SASS_WORDS", 2000)
	}
	return envCount(t, "PTXKIT_SASS_WORDS", 10000)
}

// envCount returns the positive count in the environment variable name, or
// def when it is unset.
func envCount(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive count", name, s)
	}
	return n
}

// nvdisasmKnows reports whether CUDA 12.5's nvdisasm decodes arch; the
// Blackwell architectures need CUDA 13 (see vectors_sm90_sm120.tsv).
func nvdisasmKnows(arch Arch) bool { return arch.SM <= 90 }

// TestDisasmRoundTrip decodes random words carrying a store opcode (every
// other bit random, scheduling bits legal on Turing+), prints each word
// that decodes, assembles the text and checks
// that the result is the word again, apart from the scheduling bits (which
// the text does not carry), the bits nvdisasm ignores and the values
// nvdisasm prints alike (canonicalText).
//
// Where nvdisasm 12.5 knows the architecture it judges the decoder: every
// word Decode accepts must be printed by nvdisasm as Decode prints it (one
// nvdisasm run over all of them), and the assembled words must print the
// same texts. nvdisasm stops at the first word it rejects, so the words
// Decode rejects cost one run each: PTXKIT_SASS_REJECTS of them (default
// 10 per architecture) are checked to be rejected by nvdisasm too.
// Elsewhere (Blackwell) Decode's own acceptance is used.
func TestDisasmRoundTrip(t *testing.T) {
	t.Parallel()
	tool := oracle.Tool(oracle.Default, "nvdisasm")
	n := roundTripWords(t)
	maxRejects := envCount(t, "PTXKIT_SASS_REJECTS", 10)
	for _, arch := range Archs {
		t.Run(arch.String(), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(arch.SM), 5))
			var accepted, back []Word
			var texts []string
			var rejected []Word
			for range n {
				w := randomWord(r, arch)
				d, err := Decode(w, arch)
				if err != nil {
					rejected = append(rejected, w)
					continue
				}
				accepted = append(accepted, w)
				texts = append(texts, d.Text(arch))
				back = append(back, assembleBack(t, w, d, arch))
			}
			if len(accepted) < n/2 {
				t.Errorf("only %d of %d random words decode", len(accepted), n)
			}
			oracleUsed := tool != "" && nvdisasmKnows(arch)
			if oracleUsed {
				checkOracleTexts(t, tool, accepted, texts, arch, "decoded word")
				checkOracleTexts(t, tool, back, texts, arch, "assembled word")
				checkOracleRejects(t, tool, rejected[:min(len(rejected), maxRejects)], arch)
			}
			t.Logf("%s: %d of %d random words decode and assemble back; %d rejected (%s)",
				arch, len(accepted), n, len(rejected), oracleName(oracleUsed, min(len(rejected), maxRejects)))
		})
	}
}

// checkOracleTexts checks that nvdisasm prints words[i] as texts[i].
func checkOracleTexts(t *testing.T, tool string, words []Word, texts []string, arch Arch, what string) {
	got := nvdisasmEach(t, tool, words, arch)
	bad := 0
	for i, w := range words {
		if got[i] != texts[i] {
			if bad++; bad <= 10 {
				t.Errorf("%s %s: nvdisasm prints %q, ptxkit %q", what, w.Hex(arch), got[i], texts[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d %ss print differently", bad, len(words), what)
	}
}

// checkOracleRejects checks that nvdisasm prints none of words as a store.
func checkOracleRejects(t *testing.T, tool string, words []Word, arch Arch) {
	for _, w := range words {
		if got := nvdisasmEach(t, tool, []Word{w}, arch); got[0] != "" {
			t.Errorf("%s: Decode rejects it, nvdisasm prints %q", w.Hex(arch), got[0])
		}
	}
}

func oracleName(nv bool, rejects int) string {
	if nv {
		return fmt.Sprintf("judged by nvdisasm 12.5, %d rejections confirmed", rejects)
	}
	return "Decode's acceptance; no nvdisasm for this architecture"
}

// assembleBack assembles the text of d (decoded from w) and checks the
// word it gives; it returns that word.
func assembleBack(t *testing.T, w Word, d Inst, arch Arch) Word {
	t.Helper()
	text := d.Text(arch)
	p, ok, perr := lax.ParseLine(text, 1, arch)
	if perr != nil || !ok {
		t.Errorf("%s: %q does not assemble: %v", w.Hex(arch), text, perr)
		return Word{}
	}
	p.Sched = d.Sched // the text carries no scheduling bits
	got, err := lax.Encode(p, arch)
	if err != nil {
		t.Errorf("%s: %q: %v", w.Hex(arch), text, err)
		return Word{}
	}
	exact, err := lax.Encode(d, arch)
	if err != nil {
		t.Errorf("%s: decoded %+v does not encode: %v", w.Hex(arch), d, err)
		return got
	}
	free := formatOf(w, arch).freeBits(arch)
	if !d.Desc && arch.Gen() == Turing {
		free.setBits(101, 1, 1) // DescShown means nothing without desc[]
	}
	if d.Op == STS && arch.Gen() == Turing && d.Ra == RZ && !d.UR {
		free.setBits(78, 2, 3) // [RZ.X4+imm] is the absolute [imm]
	}
	if exact != (Word{w.Lo &^ free.Lo, w.Hi &^ free.Hi}) {
		t.Errorf("%s: encode(decode(w)) = %s differs outside the ignored bits", w.Hex(arch), exact.Hex(arch))
	}
	want, err := lax.Encode(canonicalText(d, arch), arch)
	if err != nil || got != want {
		t.Errorf("%s: %q assembles to %s, want %s (%v)", w.Hex(arch), text, got.Hex(arch), want.Hex(arch), err)
	}
	return got
}

// canonicalText returns the instruction the parser reads from in's text:
// in itself, except where nvdisasm prints two encodings alike (ENCODING
// notes in docs/sass.md): a hidden SM80-SM89 descriptor register is
// DefaultDesc; Turing+ L1 policy 7 with the default size is size 7; before
// SM90 an absent Ra of [URc+imm] is 32-bit.
func canonicalText(in Inst, arch Arch) Inst {
	if in.Desc && !in.DescShown && arch.SM < 90 {
		in.URc = DefaultDesc
		if in.Op == STL && (in.Ra != RZ || in.Off == 0) {
			in.UR, in.Desc, in.URc = false, false, URZ // read as the plain [Ra+imm]
		}
	}
	if arch.Gen() == Turing && in.Policy == 7 && in.Size == Size32 && (in.Op == STL || in.Op == STG || in.Op == ST) {
		in.Policy, in.Size = DefaultPolicy, Size7
	}
	if arch.SM < 90 && in.UR && !in.Desc && in.Ra == RZ && (in.Op == STG || in.Op == ST) {
		in.Ra64 = false
	}
	return in
}

// formatOf returns the format w matches on arch.
func formatOf(w Word, arch Arch) *format {
	for i := range formats {
		if f := &formats[i]; f.on(arch) && w.and(f.mask) == f.value {
			return f
		}
	}
	return nil
}

// randomWord returns a word with the opcode of a random store format of
// arch and random bits elsewhere; Turing+ scheduling bits are legal ones.
func randomWord(r *rand.Rand, arch Arch) Word {
	var fs []*format
	for i := range formats {
		if f := &formats[i]; f.on(arch) && f.op != NOP {
			fs = append(fs, f)
		}
	}
	f := fs[r.IntN(len(fs))]
	w := Word{f.value.Lo | r.Uint64()&^f.mask.Lo, f.value.Hi | r.Uint64()&^f.mask.Hi}
	if arch.Gen() == Maxwell {
		w.Hi = 0
		return w
	}
	s := randomTuring(r, arch, NewInst(STS)).Sched
	for _, b := range turingCommon {
		if isSchedField(b.f) {
			w.setBits(b.lo, b.n, s.get(b.f))
		}
	}
	return w
}

// nvdisasmEach returns nvdisasm's text for each word, "" for the words it
// rejects. nvdisasm stops at the first word it rejects, so the batch is
// resumed after it.
func nvdisasmEach(t *testing.T, tool string, words []Word, arch Arch) []string {
	texts := make([]string, len(words))
	dir := t.TempDir()
	for start := 0; start < len(words); {
		got, bad, err := nvdisasmFrom(tool, dir, words[start:], arch)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range got {
			texts[start+i] = s
		}
		if bad < 0 {
			break
		}
		start += bad + 1
	}
	return texts
}

var nvdisasmAt = regexp.MustCompile(`at address 0x([0-9a-f]+)`)

// nvdisasmFrom disassembles words; bad is the index of the word nvdisasm
// rejected (-1 if none), before which texts are filled.
func nvdisasmFrom(tool, dir string, words []Word, arch Arch) (texts []string, bad int, err error) {
	f := filepath.Join(dir, "w.bin")
	raw := rawWords(words, arch)
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		return nil, 0, err
	}
	var stderr bytes.Buffer
	cmd := exec.Command(tool, "--binary", arch.Nvdisasm(), f)
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	if runErr == nil {
		return splitListing(out, words, arch), -1, nil
	}
	m := nvdisasmAt.FindSubmatch(stderr.Bytes())
	if m == nil {
		return nil, 0, fmt.Errorf("nvdisasm: %v: %s", runErr, stderr.String())
	}
	addr, _ := strconv.ParseInt(string(m[1]), 16, 64)
	bad = wordIndex(int(addr), arch)
	if bad == 0 {
		return nil, 0, nil
	}
	texts, bad2, err := nvdisasmFrom(tool, dir, words[:bad], arch)
	if err != nil || bad2 >= 0 {
		return nil, 0, fmt.Errorf("nvdisasm: rejected %d words before address 0x%x: %v", bad, addr, err)
	}
	return texts, bad, nil
}

// wordIndex maps a byte address of rawWords' layout to a word index.
func wordIndex(addr int, arch Arch) int {
	if arch.Gen() == Turing {
		return addr / 16
	}
	return addr/32*3 + (addr%32-8)/8
}

// splitListing returns the text nvdisasm printed for each word.
func splitListing(out []byte, words []Word, arch Arch) []string {
	texts := make([]string, len(words))
	all := nvdisasmTexts(out)
	for i := range words {
		addr := 16 * i
		if arch.Gen() == Maxwell {
			addr = i/3*32 + 8 + 8*(i%3)
		}
		if isStoreText(all[addr]) {
			texts[i] = all[addr]
		}
	}
	return texts
}

// isStoreText reports whether an nvdisasm text is one of the modelled
// stores (a random word can decode as another instruction).
func isStoreText(s string) bool {
	f := strings.Fields(s)
	if len(f) > 0 && strings.HasPrefix(f[0], "@") {
		f = f[1:]
	}
	if len(f) == 0 {
		return false
	}
	op, _, _ := strings.Cut(f[0], ".")
	return opByName(op) != OpInvalid && opByName(op) != NOP
}
