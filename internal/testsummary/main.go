// Command testsummary reads `go test -json` on standard input and prints
// what plain `go test` prints (each package's ok or FAIL line, the output
// of failing tests), then one line that says how many tests were skipped
// and why, grouped by reason. `go test ./...` hides the output of a
// package that passes, skip messages included; this line is where they
// show:
//
//	go test -json ./... | go run ./internal/testsummary [-timing]
//
// -timing also prints the packages by elapsed time, slowest first. The
// exit status is 1 when a test or package failed (or the input holds no
// test event), else 0.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	timing := flag.Bool("timing", false, "print the packages by elapsed time, slowest first")
	flag.Parse()
	s := newSummary()
	if err := s.read(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
		os.Exit(2)
	}
	if *timing {
		s.writeTiming(os.Stdout)
	}
	fmt.Fprintln(os.Stdout, s.skipLine())
	if s.failed || s.events == 0 {
		os.Exit(1)
	}
}

type summary struct {
	output  map[string][]string // package/test -> output lines so far
	skips   map[string][]string // reason -> package.Test
	elapsed map[string]float64  // package -> seconds
	events  int
	failed  bool
}

func newSummary() *summary {
	return &summary{output: map[string][]string{}, skips: map[string][]string{}, elapsed: map[string]float64{}}
}

// read consumes the events of r, writing the go test style lines to w.
func (s *summary) read(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line) // build errors and other plain text
			continue
		}
		s.events++
		s.add(e, w)
	}
	return sc.Err()
}

func (s *summary) add(e event, w io.Writer) {
	key := e.Package + "\x00" + e.Test
	switch e.Action {
	case "output":
		s.output[key] = append(s.output[key], e.Output)
	case "skip":
		if e.Test != "" {
			reason := skipReason(s.output[key])
			s.skips[reason] = append(s.skips[reason], shortPkg(e.Package)+"."+e.Test)
		}
		delete(s.output, key)
	case "pass":
		if e.Test == "" {
			s.elapsed[e.Package] = e.Elapsed
			fmt.Fprintf(w, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
		}
		delete(s.output, key)
	case "fail":
		s.failed = true
		fmt.Fprint(w, strings.Join(s.output[key], ""))
		if e.Test == "" {
			s.elapsed[e.Package] = e.Elapsed
		}
		delete(s.output, key)
	}
}

// testLine strips "file_test.go:12: " and the indentation go test puts
// before a test's log lines.
var testLine = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// skipReason is the message of a skipped test: its last logged line,
// without the file position.
func skipReason(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		l := strings.TrimSpace(out[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		if testLine.MatchString(out[i]) {
			if r := strings.TrimSpace(testLine.ReplaceAllString(out[i], "")); r != "" {
				return r
			}
			return "no reason given"
		}
		return l
	}
	return "no reason given"
}

func shortPkg(p string) string {
	return strings.TrimPrefix(p, "github.com/ptxkit/ptxkit/")
}

// skipLine is the one line about the skipped tests: their number, then
// each reason with how many tests it skipped, most first.
func (s *summary) skipLine() string {
	if len(s.skips) == 0 {
		return "skipped: none"
	}
	reasons := make([]string, 0, len(s.skips))
	n := 0
	for r, tests := range s.skips {
		reasons = append(reasons, r)
		n += len(tests)
	}
	sort.Slice(reasons, func(i, j int) bool {
		a, b := len(s.skips[reasons[i]]), len(s.skips[reasons[j]])
		return a > b || a == b && reasons[i] < reasons[j]
	})
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		tests := s.skips[r]
		sort.Strings(tests)
		parts[i] = fmt.Sprintf("%d × %q (%s)", len(tests), r, exampleTests(tests))
	}
	return fmt.Sprintf("skipped: %d tests: %s", n, strings.Join(parts, "; "))
}

func exampleTests(tests []string) string {
	if len(tests) <= 2 {
		return strings.Join(tests, ", ")
	}
	return fmt.Sprintf("%s, %s and %d more", tests[0], tests[1], len(tests)-2)
}

// writeTiming prints each package's elapsed time, slowest first, and the
// sum.
func (s *summary) writeTiming(w io.Writer) {
	pkgs := make([]string, 0, len(s.elapsed))
	total := 0.0
	for p, t := range s.elapsed {
		pkgs = append(pkgs, p)
		total += t
	}
	sort.Slice(pkgs, func(i, j int) bool { return s.elapsed[pkgs[i]] > s.elapsed[pkgs[j]] })
	fmt.Fprintf(w, "package times (sum %.1fs):\n", total)
	for _, p := range pkgs {
		fmt.Fprintf(w, "%8.1fs  %s\n", s.elapsed[p], shortPkg(p))
	}
}
