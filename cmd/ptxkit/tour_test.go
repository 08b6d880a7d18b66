package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestTour runs every command of README.md's tour from the repository's
// root and compares its output with the lines shown under it ("..." ends
// a shown line early; a command shown without output must exit 0 or 1).
func TestTour(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := tourBlock(t, string(readme))
	t.Chdir("../..")
	cmds := parseTour(block)
	if len(cmds) < 8 {
		t.Fatalf("the tour shows %d commands, want 8 or more:\n%s", len(cmds), block)
	}
	for _, c := range cmds {
		args, stdin := tourArgs(t, c.line)
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(stdin), &out, &errb)
		t.Logf("%v: exit %d, %d bytes", args, code, out.Len())
		if code != exitOK && code != exitFail {
			t.Errorf("%s: exit %d\n%s", c.line, code, errb.String())
			continue
		}
		got := strings.Split(out.String()+errb.String(), "\n")
		for _, want := range c.output {
			if !tourHasLine(got, want) {
				t.Errorf("%s: output lacks %q:\n%s%s", c.line, want, out.String(), errb.String())
			}
		}
	}
}

func tourBlock(t *testing.T, readme string) string {
	i := strings.Index(readme, "## A short tour")
	if i < 0 {
		t.Fatal("README.md has no tour")
	}
	rest := readme[i:]
	start := strings.Index(rest, "```console\n")
	end := strings.Index(rest[start+1:], "\n```")
	if start < 0 || end < 0 {
		t.Fatal("the tour has no console block")
	}
	return rest[start+len("```console\n") : start+1+end]
}

type tourCommand struct {
	line   string   // after "$ "
	output []string // the lines shown under it
}

func parseTour(block string) []tourCommand {
	var cmds []tourCommand
	for _, l := range strings.Split(block, "\n") {
		switch {
		case strings.HasPrefix(l, "$ "):
			cmds = append(cmds, tourCommand{line: l[2:]})
		case l != "" && len(cmds) > 0:
			cmds[len(cmds)-1].output = append(cmds[len(cmds)-1].output, l)
		}
	}
	return cmds
}

// tourArgs splits a shown command line: an optional "printf 'TEXT' |"
// (its text is standard input), "ptxkit", words and single-quoted words,
// and a trailing "# comment".
func tourArgs(t *testing.T, line string) (args []string, stdin string) {
	if strings.HasPrefix(line, "printf '") {
		end := strings.Index(line[8:], "'")
		stdin = strings.ReplaceAll(line[8:8+end], `\n`, "\n")
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line[8+end+1:]), "|"))
	}
	var words []string
	for line = strings.TrimSpace(line); line != "" && line[0] != '#'; line = strings.TrimSpace(line) {
		if line[0] == '\'' {
			end := strings.Index(line[1:], "'")
			words = append(words, line[1:1+end])
			line = line[end+2:]
			continue
		}
		n := strings.IndexAny(line, " \t")
		if n < 0 {
			n = len(line)
		}
		words = append(words, line[:n])
		line = line[n:]
	}
	if len(words) == 0 || words[0] != "ptxkit" {
		t.Fatalf("tour line %q does not run ptxkit", line)
	}
	return words[1:], stdin
}

func tourHasLine(got []string, want string) bool {
	prefix, elided := strings.CutSuffix(want, "...")
	for _, g := range got {
		if g == want || elided && strings.HasPrefix(g, prefix) {
			return true
		}
	}
	return false
}
