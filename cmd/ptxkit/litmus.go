package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ptxkit/ptxkit/mm"
)

func init() {
	commands["litmus"] = command{"decide memory-model litmus tests under the PTX memory consistency model", runLitmus}
}

const litmusUsage = `usage: ptxkit litmus [--model ptx-v6.0|ptx-v7.5] [--property safety|termination] [--format=text|json|dot|svg] [--dot] FILE...

FILE is a litmus test (.litmus, the Dat3M PTX dialect), a mixedproxy test
(.test; each instance of a template is decided) or a PTX kernel (.ptx) run by
the threads of --threads, with its condition in a "//@ exists (...)" comment.
"-" reads standard input as .litmus.

--dot (--format=dot) writes one Graphviz digraph with an execution of every
allowed outcome of every test (events by thread; po, rf, co, fr and sw
edges); --format=svg draws it with Graphviz's dot, which must be on PATH.

Exit status: 0 every test was decided and PASSes, 1 a test FAILs or a file
does not parse or cannot be decided, 2 usage or I/O error.`

// litmusRecord is one line of --format=json.
type litmusRecord struct {
	File       string            `json:"file"`
	Test       string            `json:"test"`
	Instance   int               `json:"instance,omitempty"`
	Model      string            `json:"model"`
	Property   string            `json:"property"`
	Condition  string            `json:"condition"`
	Witness    string            `json:"witness"`
	Pass       bool              `json:"pass"`
	Executions int               `json:"executions"`
	Outcomes   []mm.OutcomeCount `json:"outcomes,omitempty"`
	Expected   string            `json:"expected,omitempty"`
	// Execution is the witness execution as a graph (when there is one).
	Execution *mm.ExecGraph `json:"witness_execution,omitempty"`
	Error     string        `json:"-"`
	result    *mm.Result    `json:"-"`
	prog      *mm.Program   `json:"-"`
}

// litmusErrorRecord is the JSON line of a file or instance that was not
// decided.
type litmusErrorRecord struct {
	File     string `json:"file"`
	Test     string `json:"test,omitempty"`
	Instance int    `json:"instance,omitempty"`
	Model    string `json:"model"`
	Property string `json:"property"`
	Error    string `json:"error"`
}

type litmusOptions struct {
	model       mm.Model
	termination bool
	json        bool
	graph       string // "dot" or "svg" for a picture, "" otherwise
	threads     []mm.ThreadSpec
	drawn       *[]*litmusRecord // the records a picture shows
}

// runLitmus implements "ptxkit litmus".
func runLitmus(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opt, files, code, ok := parseLitmusFlags(args, stdout, stderr)
	if !ok {
		return code
	}
	status := exitOK
	var drawn []*litmusRecord
	opt.drawn = &drawn
	for _, name := range files {
		src, err := readInput(name, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "ptxkit litmus: %v\n", err)
			return exitUsage
		}
		recs, err := decideFile(name, src, opt)
		if err != nil {
			var ue usageError
			if errors.As(err, &ue) {
				fmt.Fprintf(stderr, "ptxkit litmus: %v\n", err)
				return exitUsage
			}
			var pe *mm.ParseError
			if errors.As(err, &pe) {
				fmt.Fprintf(stderr, "%s:%v\n", name, err)
			} else {
				fmt.Fprintf(stderr, "%s: %v\n", name, err)
			}
			status = exitFail
			if opt.json {
				r := &litmusRecord{File: name, Model: opt.model.String(), Property: opt.property(), Error: err.Error()}
				if err := writeLitmusRecord(stdout, stderr, r, opt); err != nil {
					fmt.Fprintf(stderr, "ptxkit litmus: %v\n", err)
					return exitUsage
				}
			}
			continue
		}
		for _, r := range recs {
			if r.Error != "" || !r.Pass {
				status = exitFail // not decided, or decided FAIL
			}
			if err := writeLitmusRecord(stdout, stderr, r, opt); err != nil {
				fmt.Fprintf(stderr, "ptxkit litmus: %v\n", err)
				return exitUsage
			}
		}
	}
	if opt.graph != "" {
		if err := writeLitmusGraph(stdout, drawn, opt); err != nil {
			fmt.Fprintf(stderr, "ptxkit litmus: %v\n", err)
			return exitUsage
		}
	}
	return status
}

func (o litmusOptions) property() string {
	if o.termination {
		return "termination"
	}
	return "safety"
}

// parseLitmusFlags reads the command line; a non-zero status means a
// usage error was reported.
func parseLitmusFlags(args []string, stdout, stderr io.Writer) (opt litmusOptions, files []string, code int, ok bool) {
	cl := newCommandLine("litmus", litmusUsage)
	model := newChoice("ptx-v7.5", "ptx-v6.0", "ptx-v7.5")
	cl.fs.Var(model, "model", "memory model: ptx-v6.0 or ptx-v7.5")
	property := newChoice("safety", "safety", "termination")
	cl.fs.Var(property, "property", "safety (the test's condition) or termination (spin loops and barriers finish)")
	format := newChoice("text", "text", "json", "dot", "svg")
	cl.fs.Var(format, "format", "output format: text, json, dot (Graphviz) or svg (drawn by Graphviz's dot)")
	dot := cl.fs.Bool("dot", false, "write the executions as a Graphviz graph (--format=dot)")
	threads := cl.fs.String("threads", "", "for .ptx kernels: the threads, each CTA[/TID][@CLUSTER] (%ctaid.x, %tid.x, cluster id), e.g. 0,1")
	files, code, ok = cl.parse(args, stdout, stderr)
	if !ok {
		return opt, nil, code, false
	}
	var err error
	if opt.model, err = mm.ParseModel(model.value); err != nil {
		cl.failf(stderr, "%v", err)
		return opt, nil, exitUsage, false
	}
	opt.termination = property.value == "termination"
	opt.json = format.value == "json"
	switch {
	case *dot && format.value != "text" && format.value != "dot":
		cl.failf(stderr, "--dot and --format=%s: choose one", format.value)
		return opt, nil, exitUsage, false
	case *dot || format.value == "dot":
		opt.graph = "dot"
	case format.value == "svg":
		opt.graph = "svg"
	}
	if *threads != "" {
		if opt.threads, err = mm.ParseThreadSpecs(*threads); err != nil {
			cl.failf(stderr, "--threads: %v", err)
			return opt, nil, exitUsage, false
		}
	}
	if len(files) == 0 {
		cl.printUsage(stderr)
		return opt, nil, exitUsage, false
	}
	return opt, files, exitOK, true
}

// usageError is a problem with the command line rather than the file.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// decideFile parses one file and decides each test in it.
func decideFile(name string, src []byte, opt litmusOptions) ([]*litmusRecord, error) {
	switch {
	case strings.HasSuffix(name, ".test"):
		insts, err := mm.ParseMixedProxy(src)
		if err != nil {
			return nil, err
		}
		var recs []*litmusRecord
		for _, in := range insts {
			r := decide(name, in.Prog, opt)
			r.Instance = in.Instance
			r.Expected = in.Expected
			recs = append(recs, r)
		}
		return recs, nil
	case strings.HasSuffix(name, ".ptx"):
		if opt.threads == nil {
			return nil, usageError{"a .ptx kernel needs --threads (e.g. --threads 0,1 for one thread in each of CTAs 0 and 1)"}
		}
		prog, err := mm.ParsePTXKernel(name, src, opt.threads)
		if err != nil {
			return nil, err
		}
		return []*litmusRecord{decide(name, prog, opt)}, nil
	}
	prog, err := mm.ParseLitmus(src)
	if err != nil {
		return nil, err
	}
	return []*litmusRecord{decide(name, prog, opt)}, nil
}

func decide(name string, prog *mm.Program, opt litmusOptions) *litmusRecord {
	r := &litmusRecord{File: name, Test: prog.Name, Model: opt.model.String(), Property: "safety",
		Condition: prog.Quant.String() + " " + prog.CondText, prog: prog}
	var res *mm.Result
	var err error
	if opt.termination {
		r.Property = "termination"
		r.Condition = "some execution does not terminate"
		res, err = mm.CheckTermination(prog, opt.model)
	} else {
		res, err = mm.Check(prog, opt.model)
	}
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.result = res
	r.Witness = "unreachable"
	if res.Reachable {
		r.Witness = "reachable"
	}
	r.Pass, r.Executions, r.Outcomes = res.Pass, res.Executions, res.Outcomes
	if res.Witness != nil {
		r.Execution = res.Witness.Graph(prog)
	}
	return r
}

func writeLitmusRecord(stdout, stderr io.Writer, r *litmusRecord, opt litmusOptions) error {
	if opt.graph != "" && r.Error == "" {
		*opt.drawn = append(*opt.drawn, r)
		return nil
	}
	if opt.json {
		var v any = r
		if r.Error != "" {
			v = litmusErrorRecord{r.File, r.Test, r.Instance, r.Model, r.Property, r.Error}
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	name := r.File
	if r.Instance > 0 {
		name = fmt.Sprintf("%s#%d", r.File, r.Instance)
	}
	if r.Error != "" {
		fmt.Fprintf(stderr, "%s: %s: %s\n", name, r.Test, r.Error)
		return nil
	}
	verdict := "FAIL"
	if r.Pass {
		verdict = "PASS"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s under %s (%s)\n", name, r.Test, r.Model, r.Property)
	fmt.Fprintf(&b, "  %s\n", r.Condition)
	fmt.Fprintf(&b, "  witness %s: %s, %d allowed executions\n", r.Witness, verdict, r.Executions)
	if r.Expected != "" {
		fmt.Fprintf(&b, "  expected by the test: %s\n", r.Expected)
	}
	if len(r.Outcomes) > 0 {
		fmt.Fprintf(&b, "  outcomes:\n")
		for _, o := range r.Outcomes {
			mark := " "
			if o.Witness {
				mark = "*"
			}
			fmt.Fprintf(&b, "   %s %-40s %d\n", mark, o.State, o.Count)
		}
	}
	if r.result != nil && r.result.Witness != nil {
		title := "a witness execution"
		if opt.termination {
			title = "an execution that does not terminate"
		}
		fmt.Fprintf(&b, "  %s:\n", title)
		for _, line := range strings.Split(strings.TrimRight(r.result.Witness.Format(r.prog), "\n"), "\n") {
			fmt.Fprintf(&b, "    %s\n", line)
		}
	}
	_, err := io.WriteString(stdout, b.String())
	return err
}
