package sass

import (
	"math/rand/v2"
	"testing"
)

func benchInsts(arch Arch) ([]Inst, []Word) {
	r := rand.New(rand.NewPCG(1, uint64(arch.SM)))
	insts := make([]Inst, 1024)
	words := make([]Word, len(insts))
	for i := range insts {
		insts[i] = randomInst(r, arch, false)
		words[i], _ = Encode(insts[i], arch)
	}
	return insts, words
}

func BenchmarkEncode(b *testing.B) {
	for _, arch := range []Arch{{50}, {90}} {
		b.Run(arch.String(), func(b *testing.B) {
			insts, _ := benchInsts(arch)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := Encode(insts[i%len(insts)], arch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, arch := range []Arch{{50}, {90}} {
		b.Run(arch.String(), func(b *testing.B) {
			_, words := benchInsts(arch)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := Decode(words[i%len(words)], arch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseLine(b *testing.B) {
	arch := Arch{90}
	insts, _ := benchInsts(arch)
	texts := make([]string, len(insts))
	for i, in := range insts {
		texts[i] = in.Text(arch)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, _, err := ParseLine(texts[i%len(texts)], 1, arch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkText(b *testing.B) {
	arch := Arch{90}
	insts, _ := benchInsts(arch)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = insts[i%len(insts)].Text(arch)
	}
}
