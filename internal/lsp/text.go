package lsp

import (
	"sort"
	"unicode/utf8"
)

// encoding is the unit an LSP Position's character counts (LSP 3.17
// "PositionEncodingKind"). ptxkit's own columns count bytes, which is
// utf8 here.
type encoding int

const (
	utf16Enc encoding = iota // the protocol's default
	utf8Enc
)

func (e encoding) String() string {
	if e == utf8Enc {
		return "utf-8"
	}
	return "utf-16"
}

// text is a document's content with the byte offset of each line start.
// Lines end at "\n", "\r\n" or a lone "\r" (LSP 3.17 "Text Documents";
// ptxkit's scanner counts lines the same way).
type text struct {
	src   string
	lines []int // lines[i] is the offset of line i's first byte
}

func newText(src string) *text {
	t := &text{src: src, lines: make([]int, 1, 1+len(src)/32)}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' || src[i] == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// lineEnd returns the offset just past line l's text, before its "\n",
// "\r\n" or "\r" (the protocol's lines exclude them).
func (t *text) lineEnd(l int) int {
	if l+1 >= len(t.lines) {
		return len(t.src)
	}
	end := t.lines[l+1] - 1
	if t.src[end] == '\n' && end > t.lines[l] && t.src[end-1] == '\r' {
		end--
	}
	return end
}

// offset converts p to a byte offset. A line past the end of the text is
// an error; a character past the end of its line means the line's end
// (LSP 3.17 "Position"). A character inside a UTF-16 surrogate pair or a
// UTF-8 sequence rounds down to the character's start.
func (t *text) offset(p Position, enc encoding) (int, bool) {
	if p.Line < 0 || p.Character < 0 || p.Line >= len(t.lines) {
		return 0, false
	}
	off, end := t.lines[p.Line], t.lineEnd(p.Line)
	if enc == utf8Enc {
		off = min(off+p.Character, end)
		for off > t.lines[p.Line] && off < len(t.src) && !utf8.RuneStart(t.src[off]) {
			off--
		}
		return off, true
	}
	for units := 0; off < end; {
		r, size := utf8.DecodeRuneInString(t.src[off:end])
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > p.Character {
			break
		}
		units += n
		off += size
	}
	return off, true
}

// position converts a byte offset (clamped to the text) to a Position.
func (t *text) position(off int, enc encoding) Position {
	off = max(0, min(off, len(t.src)))
	l := sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) - 1
	return Position{Line: l, Character: t.units(t.lines[l], off, enc)}
}

// units counts the code units of src[from:to] in enc.
func (t *text) units(from, to int, enc encoding) int {
	if enc == utf8Enc {
		return to - from
	}
	n := 0
	for i := from; i < to; {
		r, size := utf8.DecodeRuneInString(t.src[i:to])
		if r >= 0x10000 {
			n++
		}
		n++
		i += size
	}
	return n
}

// rangeOf converts the byte range [from, to) to a Range.
func (t *text) rangeOf(from, to int, enc encoding) Range {
	return Range{Start: t.position(from, enc), End: t.position(to, enc)}
}

// edit returns the text with r replaced by s, or false when r lies outside
// the text or ends before it starts.
func (t *text) edit(r Range, s string, enc encoding) (string, bool) {
	from, ok1 := t.offset(r.Start, enc)
	to, ok2 := t.offset(r.End, enc)
	if r.End.Line == len(t.lines) && r.End.Character == 0 {
		to, ok2 = len(t.src), true // the position just past a final newline
	}
	if r.Start.Line == len(t.lines) && r.Start.Character == 0 {
		from, ok1 = len(t.src), true
	}
	if !ok1 || !ok2 || to < from {
		return "", false
	}
	return t.src[:from] + s + t.src[to:], true
}
