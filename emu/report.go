package emu

import (
	"fmt"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Sanitizer rule ids. Every part of the emulator (core, mbarrier,
// async-groups, tensor memory) reports undefined behaviour as a *Report
// with one of these rules or a rule of its own in the same style.
const (
	ruleMisaligned   = "misaligned"        // address not a multiple of the access size (§6.4.1)
	ruleOutOfBounds  = "out-of-bounds"     // address outside every allocation of its space
	ruleWrongWindow  = "wrong-window"      // generic address outside the window the operation requires
	ruleStoreConst   = "store-to-const"    // st to .const (§9.7.9.11)
	ruleStoreParam   = "store-to-param"    // st to a kernel parameter (§5.1.6)
	ruleDeadlock     = "deadlock"          // every warp waits on something that cannot happen
	RuleMaxSteps     = "max-steps"         // the step budget ran out
	ruleCallDepth    = "call-depth"        // a thread's stack overflows (recursion frames, alloca); deep call chains are RuleUnsupported
	ruleDivideByZero = "divide-by-zero"    // integer division by zero (result undefined)
	ruleBadBarrier   = "barrier-count"     // bar thread count not a multiple of the warp size
	ruleBarDivergent = "barrier-divergent" // an .aligned barrier executed by part of a warp
	RuleUnsupported  = "unsupported"       // behaviour the emulator does not model
	ruleRemoteExited = "remote-cta-exited" // DSMEM access to a CTA that has exited (§2.2.2)
)

// ThreadID locates one thread of a launch.
type ThreadID struct {
	Cluster [3]int // %clusterid
	CTA     [3]int // %ctaid
	Thread  [3]int // %tid
	Rank    int    // %cluster_ctarank
	Warp    int    // warp index in the CTA
	Lane    int    // %laneid
}

func (t ThreadID) String() string {
	return fmt.Sprintf("thread (%d,%d,%d) of CTA (%d,%d,%d) [cluster (%d,%d,%d) rank %d, warp %d lane %d]",
		t.Thread[0], t.Thread[1], t.Thread[2], t.CTA[0], t.CTA[1], t.CTA[2],
		t.Cluster[0], t.Cluster[1], t.Cluster[2], t.Rank, t.Warp, t.Lane)
}

// Report is one instance of undefined behaviour (or a resource limit)
// found while emulating. It stops the run; ptxkit run exits with status 3.
type Report struct {
	// Rule names what went wrong: "misaligned", "out-of-bounds",
	// "deadlock", ... (docs/emu.md, async.md and tmem.md list them). RuleMaxSteps,
	// RuleTimeout and RuleUnsupported are not undefined behaviour: the run
	// was stopped or does something the emulator does not model.
	Rule    string
	Message string
	File    string
	Pos     token.Pos // of the instruction; zero for whole-cluster reports
	Opcode  string    // the instruction as written ("st.global.v4.u32"), if any
	Thread  *ThreadID // nil when no single thread is at fault (deadlock)
	Spec    string    // spec section, e.g. "PTX ISA §6.4.1"
	Waits   []string  // deadlock: where each warp waits
}

// Error formats the report over several lines:
//
//	FILE:LINE:COL: sanitizer: MESSAGE [RULE]
//	  in st.global.u32 by thread (...)
func (r *Report) Error() string {
	var b strings.Builder
	pos := token.Position{File: r.File, Pos: r.Pos}
	if r.Pos.Line > 0 {
		fmt.Fprintf(&b, "%s: ", pos)
	} else if r.File != "" {
		fmt.Fprintf(&b, "%s: ", r.File)
	}
	fmt.Fprintf(&b, "sanitizer: %s [%s]", r.Message, r.Rule)
	if r.Opcode != "" || r.Thread != nil {
		b.WriteString("\n  ")
		if r.Opcode != "" {
			fmt.Fprintf(&b, "in %s", r.Opcode)
			if r.Thread != nil {
				b.WriteString(" by ")
			}
		}
		if r.Thread != nil {
			b.WriteString(r.Thread.String())
		}
	}
	if r.Spec != "" {
		fmt.Fprintf(&b, "\n  see %s", r.Spec)
	}
	for _, w := range r.Waits {
		fmt.Fprintf(&b, "\n  %s", w)
	}
	return b.String()
}

// Diagnostic converts the report to a diagnostic for the shared writers.
func (r *Report) Diagnostic() diag.Diagnostic {
	msg := r.Message
	if r.Thread != nil {
		msg += " (" + r.Thread.String() + ")"
	}
	return diag.Diagnostic{File: r.File, Pos: r.Pos, End: r.Pos, Severity: diag.Error, Rule: "sanitizer-" + r.Rule, Message: msg, Spec: r.Spec}
}
