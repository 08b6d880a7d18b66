package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/emu"
)

// runRecord is the one JSON object `ptxkit run --format=json` writes on
// standard output (docs/emu.md describes it). Diagnostics that stop the
// program before the run are JSON Lines on standard output instead, as
// `ptxkit check --format=json` writes them.
type runRecord struct {
	File    string     `json:"file"`
	Kernel  string     `json:"kernel"`
	Grid    [3]int     `json:"grid"`
	Block   [3]int     `json:"block"`
	Cluster [3]int     `json:"cluster"`
	Status  string     `json:"status"` // "completed" or "stopped"
	Report  *runReport `json:"report,omitempty"`
	// Reports, with --keep-going, holds every distinct problem in order
	// of first occurrence (Report is the first); LeftOut counts the
	// instances of the problems past --max-reports.
	Reports []runKept    `json:"reports,omitempty"`
	LeftOut int          `json:"reports_left_out,omitempty"`
	Printf  string       `json:"printf,omitempty"`
	Buffers []runBuffer  `json:"buffers"`
	Stats   *runStatsRec `json:"stats,omitempty"`
}

// runReport is a sanitizer report or the reason the run stopped.
type runReport struct {
	Rule    string     `json:"rule"`
	Message string     `json:"message"`
	File    string     `json:"file,omitempty"`
	Line    int        `json:"line,omitempty"`
	Col     int        `json:"col,omitempty"`
	Source  string     `json:"source,omitempty"` // "add.cu:12:5", from .loc
	Opcode  string     `json:"opcode,omitempty"`
	Thread  *runThread `json:"thread,omitempty"`
	Spec    string     `json:"spec,omitempty"`
	Waits   []string   `json:"waits,omitempty"`
}

// runKept is one distinct problem of a --keep-going run.
type runKept struct {
	runReport
	Count int `json:"count"` // how many times it was hit
}

// runThread is the thread a report is about.
type runThread struct {
	Cluster [3]int `json:"cluster"` // %clusterid
	CTA     [3]int `json:"cta"`     // %ctaid
	Thread  [3]int `json:"thread"`  // %tid
	Rank    int    `json:"rank"`    // %cluster_ctarank
	Warp    int    `json:"warp"`    // in the CTA
	Lane    int    `json:"lane"`    // %laneid
}

// runBuffer is one buffer argument's final contents.
type runBuffer struct {
	Arg       int    `json:"arg"`
	Parameter string `json:"parameter"`
	Bytes     int    `json:"bytes"`
	Hex       string `json:"hex"` // all of it, lower-case hex
}

type runStatsRec struct {
	WarpInstructions   uint64  `json:"warp_instructions"`
	ThreadInstructions uint64  `json:"thread_instructions"`
	WallSeconds        float64 `json:"wall_seconds"`
}

// writeRunJSON writes the record of a finished run.
func writeRunJSON(w io.Writer, name string, prog *emu.Program, l *emu.Launch, res *emu.Result, stats bool) error {
	rec := runRecord{File: name, Kernel: prog.Kernel, Grid: l.Grid, Block: l.Block, Cluster: l.Cluster,
		Status: "completed", Printf: string(res.Stats.Printf), Buffers: []runBuffer{}}
	if r := res.Report; r != nil {
		rec.Status = "stopped"
		rec.Report = jsonReport(prog, r)
	}
	if len(res.Reports) > 0 {
		rec.Status = keptStatus(res)
		for _, k := range res.Reports {
			rec.Reports = append(rec.Reports, runKept{*jsonReport(prog, k.Report), k.Count})
		}
		rec.LeftOut = res.LeftOut
	}
	for i, b := range res.Buffers {
		if b != nil {
			rec.Buffers = append(rec.Buffers, runBuffer{Arg: i, Parameter: b.Param, Bytes: len(b.Data), Hex: hex.EncodeToString(b.Data)})
		}
	}
	if stats {
		rec.Stats = &runStatsRec{res.Stats.WarpInsts, res.Stats.ThreadInsts, res.Stats.Wall.Seconds()}
	}
	enc := json.NewEncoder(w)
	return enc.Encode(rec)
}

// jsonReport is report r as the JSON record carries it.
func jsonReport(prog *emu.Program, r *emu.Report) *runReport {
	j := &runReport{Rule: r.Rule, Message: r.Message, File: r.File, Line: int(r.Pos.Line), Col: int(r.Pos.Col),
		Source: prog.SourceOf(r.Pos), Opcode: r.Opcode, Spec: r.Spec, Waits: r.Waits}
	if t := r.Thread; t != nil {
		j.Thread = &runThread{t.Cluster, t.CTA, t.Thread, t.Rank, t.Warp, t.Lane}
	}
	return j
}

// writeDiags writes diagnostics that stop the program before the run:
// text on standard error, or JSON Lines on standard output with
// --format=json.
func (o *runOptions) writeDiags(stdout, stderr io.Writer, l diag.List) {
	if o.format.value == "json" {
		diag.WriteJSON(stdout, l)
		return
	}
	diag.WriteText(stderr, l)
}

// finishJSON ends a run with --format=json: the record on standard
// output, the buffers written to --out, and the exit status.
func (o *runOptions) finishJSON(name string, prog *emu.Program, l *emu.Launch, res *emu.Result, stdout, stderr io.Writer) int {
	if err := writeRunJSON(stdout, name, prog, l, res, o.stats); err != nil {
		fmt.Fprintf(stderr, "ptxkit run: %v\n", err)
		return exitUsage
	}
	if o.out != "" {
		if err := writeBuffers(o.out, res.Buffers); err != nil {
			fmt.Fprintf(stderr, "ptxkit run: %v\n", err)
			return exitUsage
		}
	}
	if res.Report != nil {
		return exitSanitize
	}
	return exitOK
}
