package diag

import (
	"bytes"
	"strings"
)

// IgnoreMarker starts the comment that silences rules on one line:
// "// ptxkit:ignore RULE[,RULE]...". At the end of a line it silences the
// rules on that line; alone on a line, on the next one. Rules are always
// named: a new kind of mistake on the line is still reported.
const IgnoreMarker = "ptxkit:ignore"

// ignoreKey is a rule silenced on a line.
type ignoreKey struct {
	line int32
	rule string
}

// Ignored is the set of rules the comments of a source silence, by line.
type Ignored map[ignoreKey]bool

// IgnoredIn finds the ptxkit:ignore comments of src; nil when it has
// none.
func IgnoredIn(src []byte) Ignored {
	if !bytes.Contains(src, []byte(IgnoreMarker)) {
		return nil
	}
	set := Ignored{}
	line := int32(0)
	for len(src) > 0 {
		line++
		text := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			text, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		c := bytes.Index(text, []byte("//"))
		if c < 0 {
			continue
		}
		rest, ok := bytes.CutPrefix(bytes.TrimSpace(text[c+2:]), []byte(IgnoreMarker))
		if !ok {
			continue
		}
		target := line
		if len(bytes.TrimSpace(text[:c])) == 0 {
			target = line + 1
		}
		for _, r := range strings.FieldsFunc(string(rest), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			set[ignoreKey{target, r}] = true
		}
	}
	return set
}

// Silences reports whether a comment silences d.
func (ig Ignored) Silences(d Diagnostic) bool { return ig[ignoreKey{d.Pos.Line, d.Rule}] }

// Without returns l without the diagnostics the comments silence (l
// itself when there are none).
func (ig Ignored) Without(l List) List {
	if len(ig) == 0 {
		return l
	}
	out := l[:0:0]
	for _, d := range l {
		if !ig.Silences(d) {
			out = append(out, d)
		}
	}
	return out
}
