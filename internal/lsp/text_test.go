package lsp

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// TestPositionRoundTrip converts every byte offset of random texts mixing
// ASCII, two-, three- and four-byte characters and line ends ("\n",
// "\r\n" and a lone "\r") to a
// Position and back, in both encodings, and checks the UTF-16 columns
// against unicode/utf16.
func TestPositionRoundTrip(t *testing.T) {
	pieces := []string{"a", "%r1", " ", "\t", "\n", "\r\n", "\r", "é", "€", "😀", "𝄞", "\n\n"}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200; n++ {
		var b strings.Builder
		for k := rng.IntN(40); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		src := b.String()
		txt := newText(src)
		for o := 0; o <= len(src); o++ {
			if o < len(src) && !utf8.RuneStart(src[o]) || o > 0 && o < len(src) && src[o-1] == '\r' && src[o] == '\n' {
				continue // inside a character, or inside a "\r\n" line break
			}
			line, start := 0, 0
			for i := 0; i < o; i++ {
				if src[i] == '\n' || src[i] == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
					line, start = line+1, i+1
				}
			}
			prefix := src[start:o]
			for _, enc := range []encoding{utf16Enc, utf8Enc} {
				p := txt.position(o, enc)
				want := Position{line, len(prefix)}
				if enc == utf16Enc {
					want.Character = len(utf16.Encode([]rune(prefix)))
				}
				if p != want {
					t.Fatalf("%q offset %d %v: position %v, want %v", src, o, enc, p, want)
				}
				if back, ok := txt.offset(p, enc); !ok || back != o {
					t.Fatalf("%q offset %d %v: position %v back to %d", src, o, enc, p, back)
				}
			}
		}
	}
}

// TestOffsetClamps checks positions past a line's end and inside a
// surrogate pair, and lines past the end.
func TestOffsetClamps(t *testing.T) {
	txt := newText("a😀b\nxy")
	for _, tc := range []struct {
		p    Position
		enc  encoding
		want int
		ok   bool
	}{
		{Position{0, 2}, utf16Enc, 1, true},  // inside the surrogate pair: before the emoji
		{Position{0, 3}, utf16Enc, 5, true},  // after it
		{Position{0, 99}, utf16Enc, 6, true}, // past the line's end: the line's end
		{Position{0, 3}, utf8Enc, 1, true},   // inside the UTF-8 sequence
		{Position{1, 99}, utf8Enc, 9, true},
		{Position{2, 0}, utf16Enc, 0, false},
		{Position{-1, 0}, utf16Enc, 0, false},
	} {
		got, ok := txt.offset(tc.p, tc.enc)
		if got != tc.want || ok != tc.ok {
			t.Errorf("offset(%v, %v) = %d, %v; want %d, %v", tc.p, tc.enc, got, ok, tc.want, tc.ok)
		}
	}
	// Past the end of a line ending in "\r\n": before the "\r".
	txt = newText("ab\r\ncd\r\n")
	for _, tc := range []struct {
		p    Position
		enc  encoding
		want int
		ok   bool
	}{
		{Position{0, 9}, utf16Enc, 2, true},
		{Position{1, 2}, utf8Enc, 6, true},
		{Position{2, 0}, utf8Enc, 8, true},
	} {
		got, ok := txt.offset(tc.p, tc.enc)
		if got != tc.want || ok != tc.ok {
			t.Errorf("offset(%v, %v) = %d, %v; want %d, %v", tc.p, tc.enc, got, ok, tc.want, tc.ok)
		}
	}
}
