package sass

import (
	"testing"
)

type vector struct {
	line int
	arch Arch
	text string
	word Word
}

// readVectors loads testdata/sass/vectors.tsv (nvdisasm-verified rows).
func readVectors(t testing.TB) []vector {
	out := readVectorFile(t, "vectors.tsv")
	if len(out) < 600 {
		t.Fatalf("only %d vectors", len(out))
	}
	return out
}

func TestVectorsDecode(t *testing.T) {
	for _, v := range readVectors(t) {
		in, err := Decode(v.word, v.arch)
		if err != nil {
			t.Errorf("line %d: Decode(%s): %v", v.line, v.word.Hex(v.arch), err)
			continue
		}
		if got := in.Text(v.arch); got != v.text {
			t.Errorf("line %d: Decode(%s) = %q, want %q", v.line, v.word.Hex(v.arch), got, v.text)
		}
	}
}

func TestVectorsEncode(t *testing.T) {
	for _, v := range readVectors(t) {
		in, ok, perr := lax.ParseLine(v.text, 1, v.arch)
		if perr != nil || !ok {
			t.Errorf("line %d: ParseLine(%q): %v", v.line, v.text, perr)
			continue
		}
		if v.arch.Gen() == Turing {
			// The text carries no scheduling bits; take them from the word.
			d, err := Decode(v.word, v.arch)
			if err != nil {
				t.Errorf("line %d: %v", v.line, err)
				continue
			}
			in.Sched = d.Sched
		}
		w, err := lax.Encode(in, v.arch)
		if err != nil {
			t.Errorf("line %d: Encode(%q): %v", v.line, v.text, err)
			continue
		}
		if w != v.word {
			t.Errorf("line %d: Encode(%q) = %s, want %s", v.line, v.text, w.Hex(v.arch), v.word.Hex(v.arch))
		}
	}
}

var lax = Options{AllowMisaligned: true}

// TestVectorsStrictAlignment checks that the default encoder rejects
// exactly the vectors whose data register tuple is misaligned.
func TestVectorsStrictAlignment(t *testing.T) {
	rejected := 0
	for _, v := range readVectors(t) {
		d, err := Decode(v.word, v.arch)
		if err != nil {
			continue
		}
		n := d.Size.Regs()
		misaligned := d.Rb != RZ && int(d.Rb)%n != 0
		_, err = Encode(d, v.arch)
		if misaligned != (err != nil) {
			t.Errorf("line %d: %q: misaligned=%v, Encode error %v", v.line, v.text, misaligned, err)
		}
		if err != nil {
			rejected++
		}
	}
	if rejected == 0 {
		t.Error("no misaligned vector found")
	}
}

// TestVectorsFormatRoundTrip checks that the annotated text (schedule
// included) parses back to the same word.
func TestVectorsFormatRoundTrip(t *testing.T) {
	for _, v := range readVectors(t) {
		d, err := Decode(v.word, v.arch)
		if err != nil {
			continue // reported by TestVectorsDecode
		}
		text := d.Format(v.arch)
		in, _, perr := lax.ParseLine(text, 1, v.arch)
		if perr != nil {
			t.Errorf("line %d: ParseLine(%q): %v", v.line, text, perr)
			continue
		}
		if in != d {
			t.Errorf("line %d: %q parses to %+v, want %+v", v.line, text, in, d)
		}
	}
}
