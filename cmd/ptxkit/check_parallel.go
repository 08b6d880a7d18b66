package main

import (
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// A large module is checked in parts, one per processor, each on a
// goroutine of its own (docs/startup.md, "Large modules in parts"):
//
//  1. The module is cut into parts of about equal cost at lines holding
//     only the '}' that closes a function (found with a plain search, not
//     a parse: whether each cut is where a function ends is verified in
//     step 3).
//  2. Each part but the last is parsed with its function bodies skipped
//     (parser.SkipBodies): its directives, variables and function headers,
//     the module scope it adds.
//  3. Each part is parsed, resolved and validated statement by statement
//     by a check.Checker that first declared the module scope of the
//     parts before it (check.Checker.Declare). It must end with the
//     function whose '}' the cut is at, and its top-level statements must
//     begin where step 2 found them.
//  4. The last part's Checker takes the first call of each function from
//     the others and ends the module; the diagnostics are those of the
//     parts in order.
//
// When any part has a syntax error or a resolution error, or a cut turns
// out not to be where a function ends, the parts' diagnostics are not
// known to be the whole module's, and the module is checked whole
// (checkFile's other paths). The result is always what checkSerial gives.

// partMinBytes is the smallest part worth a goroutine: a part costs a
// parse of the headers before it.
var partMinBytes = 512 << 10 // a variable for the tests only

// skimCost is what skimming a byte (skimPart) costs against checking it:
// 0.12-0.13 in instructions executed (callgrind) on compiler-style
// modules and copies of nvcc output.
const skimCost = 0.12

// part is one part of a module checked in parts.
type part struct {
	from token.Pos // where the part begins
	to   int       // offset just past it: after the line of the last '}'
	last int       // offset of that '}' (for the last part, -1)

	skim    sync.Once
	skimmed bool          // the skim found no syntax error
	decls   []ast.TopStmt // its top-level statements, bodies skipped (step 2)

	chk  *check.Checker
	mark check.Mark
	tops []token.Pos // where its top-level statements begin, as checkPart parsed them
}

// checkParallel checks the module src in up to n parts on as many
// goroutines and returns its diagnostics (without file names, unsorted),
// or false when it must be checked whole.
//
// The goroutine of part k skims the parts before it (step 2), the
// nearest first, each part once whichever goroutine comes to it first,
// so that the first part is checked at once and the others wait little.
func checkParallel(name, src string, cfg check.Config, n int) (diag.List, bool) {
	if i := strings.IndexByte(src, 0); i >= 0 {
		src = src[:i] // ptxas reads a C string (parser.beforeNUL)
	}
	parts := cutParts(src, n)
	if len(parts) < 2 {
		return nil, false
	}
	var failed atomic.Bool
	eachPart(len(parts), &failed, func(k int) {
		for j := k - 1; j >= 0 && !failed.Load(); j-- {
			q := parts[j]
			q.skim.Do(func() { q.skimmed = skimPart(name, src, q) })
			if !q.skimmed {
				failed.Store(true)
			}
		}
		if failed.Load() || !checkPart(name, src, cfg, parts[:k], parts[k], &failed) {
			failed.Store(true)
		}
	})
	if failed.Load() {
		return nil, false
	}
	for _, p := range parts[:len(parts)-1] {
		if !slices.Equal(p.tops, p.declPositions()) {
			return nil, false // the skim and the parse disagree
		}
	}
	last := parts[len(parts)-1]
	earlier := make([]*check.Checker, 0, len(parts)-1)
	for _, p := range parts[:len(parts)-1] {
		earlier = append(earlier, p.chk)
	}
	last.chk.AdoptCalls(earlier)
	last.chk.Finish()
	var all diag.List
	for _, p := range parts {
		l, resolved := p.chk.Since(p.mark)
		if !resolved {
			return nil, false
		}
		all = append(all, l...)
	}
	return all, true
}

// eachPart runs do(k) for k from 0 to n-1, each on a goroutine, and
// waits. A goroutine that panics (a memory fault reading a mapped file
// that shrank, with debug.SetPanicOnFault as guardFaults sets it for the
// caller) sets failed, which stops the others at their next statement,
// and the panic of the first part that had one is raised again here, on
// the caller's goroutine, where guardFaults reports it.
func eachPart(n int, failed *atomic.Bool, do func(k int)) {
	panics := make([]any, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					panics[k] = r
					failed.Store(true)
				}
			}()
			debug.SetPanicOnFault(true)
			do(k)
		}()
	}
	wg.Wait()
	for _, r := range panics {
		if r != nil {
			panic(r)
		}
	}
}

// declPositions returns where the statements skimPart found begin.
func (p *part) declPositions() []token.Pos {
	ps := make([]token.Pos, len(p.decls))
	for i, s := range p.decls {
		ps[i] = s.Pos()
	}
	return ps
}

// cutParts cuts src into at most n parts of about equal cost (at least
// partMinBytes each, the first larger by skimCost), each but the last
// ending with a line that holds only "}". A module with a line break
// that is a lone '\r' is not cut (the line numbers of the cuts are
// counted in '\n's).
func cutParts(src string, n int) []*part {
	n = min(n, len(src)/partMinBytes)
	if n < 2 || strings.IndexByte(src, '\r') >= 0 && strings.Count(src, "\r") != strings.Count(src, "\r\n") {
		return nil
	}
	var parts []*part
	from := token.Pos{Line: 1, Col: 1}
	for k := 1; k < n; k++ {
		// The goroutine of each part but the first also skims the part
		// before it: the first part is made larger by as much.
		target := int(float64(len(src)) * (1 + skimCost + float64(k-1)) / (skimCost + float64(n)))
		if target <= int(from.Offset) {
			continue
		}
		brace, to := closingLine(src, target)
		if brace < 0 {
			break
		}
		parts = append(parts, &part{from: from, to: to, last: brace})
		line := from.Line + int32(strings.Count(src[from.Offset:to], "\n"))
		from = token.Pos{Offset: int32(to), Line: line, Col: 1}
	}
	if int(from.Offset) >= len(src) {
		if len(parts) > 0 { // the last cut is at the end: it needs no part
			parts[len(parts)-1].last = -1
		}
		return parts
	}
	return append(parts, &part{from: from, to: len(src), last: -1})
}

// closingLine finds the first line at or after offset from that holds
// only "}" (and its line break) and returns the offset of the '}' and of
// the start of the next line; -1 when there is none.
func closingLine(src string, from int) (brace, next int) {
	for {
		i := strings.Index(src[from:], "\n}")
		if i < 0 {
			return -1, -1
		}
		brace = from + i + 1
		rest := src[brace+1:]
		switch {
		case strings.HasPrefix(rest, "\n"):
			return brace, brace + 2
		case strings.HasPrefix(rest, "\r\n"):
			return brace, brace + 3
		}
		from = brace
	}
}

// skimPart parses p with bodies skipped and keeps its top-level
// statements (step 2); false on a syntax error.
func skimPart(name, src string, p *part) bool {
	st := parser.NewStreamAt(name, src[:p.to], parser.SkipBodies, p.from)
	for s := st.Next(); s != nil; s = st.Next() {
		p.decls = append(p.decls, s)
	}
	return len(st.Errors()) == 0
}

// checkPart checks p (step 3) with a Checker that first declared the
// parts before it; false when p must not be trusted: a syntax error, a
// cut not after a function's '}', or another part that failed.
func checkPart(name, src string, cfg check.Config, before []*part, p *part, failed *atomic.Bool) bool {
	chk := check.NewChecker(name, cfg)
	for _, q := range before {
		for _, s := range q.decls {
			chk.Declare(s)
		}
	}
	p.chk, p.mark = chk, chk.Mark()
	st := parser.NewStreamAt(name, src[:p.to], parser.StreamStatements, p.from)
	var last ast.TopStmt
	for s := st.Next(); s != nil; s = st.Next() {
		if len(st.Errors()) > 0 || failed.Load() {
			return false
		}
		p.tops = append(p.tops, s.Pos())
		last = s
		if f, ok := s.(*ast.Function); ok {
			checkFunction(st, chk, f)
		} else {
			chk.Add(s)
		}
	}
	if len(st.Errors()) > 0 {
		return false
	}
	if p.last < 0 {
		return true
	}
	f, ok := last.(*ast.Function)
	return ok && f.Body != nil && int(f.To.Offset) == p.last+1
}
