package emu

import (
	"fmt"
	"math/bits"

	"github.com/ptxkit/ptxkit/emu/mbarrier"
	"github.com/ptxkit/ptxkit/ptx/token"
)

func init() { tcCommitExec = execTcCommit }

const specTcCommit = "PTX ISA §9.7.16.8.6 (tcgen05.commit: .multicast::cluster signals the mbarrier at the same offset in each CTA of ctaMask)"

// execTcCommit makes the mbarrier track the completion of the executing
// threads' earlier asynchronous tcgen05 operations (§9.7.16.8.6): for each
// thread, an asynchronous arrive-on (count 1) that first lands the warp's
// tcgen05.st and tcgen05.mma issued before the commit. With .multicast::cluster the
// arrive-on goes to the mbarrier at the same shared-memory offset in every
// CTA of the cluster whose rank bit is set in the 16-bit ctaMask.
// tcgen05.commit implies tcgen05.fence::before_thread_sync.
func execTcCommit(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcInst)
	if st := useGroup(w, x.group); st != Continue {
		return st
	}
	var before []tcPending
	if t, ok := w.CTA.ext[tmemKey].(*ctaTMEM); ok {
		before = t.pendingOf(w.Index)
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		target, off, ok := w.barrierAt(l, in, false)
		if !ok {
			return Fault
		}
		targets := []*CTA{target}
		if x.multicast {
			if targets, ok = commitTargets(w, l, uint16(w.R[in.B+int32(l)])); !ok {
				return Fault
			}
		}
		issuer := *w.threadID(l)
		file, pos := w.prog.File, w.prog.Insts[w.pc].Pos
		release := w.raceTcCommit(l)
		st := w.IssueFrom(l, &AsyncOp{Kind: "tcgen05.commit", Land: func(c *Cluster) *Report {
			for _, ps := range before {
				ps.Land()
			}
			for _, t := range targets {
				p0 := racePhases(w, t, off)
				if r := commitArrive(t, off, &issuer, file, pos); r != nil {
					return r
				}
				release(t, off, p0)
			}
			return nil
		}})
		if st != Continue {
			return st
		}
	}
	return Continue
}

// commitTargets returns the CTAs a multicast commit's ctaMask names.
func commitTargets(w *Warp, l int, mask uint16) ([]*CTA, bool) {
	ctas := w.CTA.cluster.CTAs
	if mask == 0 || int(bits.Len16(mask)) > len(ctas) {
		w.Fault(l, ruleOutOfBounds, specTcCommit,
			"tcgen05.commit.multicast::cluster: ctaMask %#04x names no CTA or a rank beyond the cluster's %d CTAs", mask, len(ctas))
		return nil, false
	}
	var out []*CTA
	for m := mask; m != 0; m &= m - 1 {
		out = append(out, ctas[bits.TrailingZeros16(m)])
	}
	return out, true
}

// commitArrive performs the arrive-on of a tcgen05.commit on the mbarrier
// at offset off of c's shared memory.
func commitArrive(c *CTA, off uint32, issuer *ThreadID, file string, pos token.Pos) *Report {
	s := asyncCTA(c)
	res, err := s.bars.Arrive(uint64(off), loadWord(c, off), 1, false)
	if err != nil {
		rule, spec, msg := RuleUnsupported, "", err.Error()
		if me, ok := err.(*mbarrier.Error); ok {
			rule, spec = me.Kind.Rule(), me.Kind.Spec()
			msg = fmt.Sprintf("tcgen05.commit arrive-on the mbarrier at offset %#x of CTA rank %d: %s", off, c.Rank, me.Kind)
			if me.Detail != "" {
				msg += " (" + me.Detail + ")"
			}
		}
		return &Report{Rule: rule, Spec: spec, File: file, Pos: pos, Opcode: "tcgen05.commit", Thread: issuer, Message: msg}
	}
	storeWord(c, off, res.Word)
	return nil
}
