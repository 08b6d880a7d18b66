package emu

import (
	"fmt"

	"github.com/ptxkit/ptxkit/emu/mbarrier"
	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/ptx/token"
)

func init() { tcCommitExec = execTcCommit }

// execTcCommit makes the mbarrier track the completion of the executing
// threads' earlier asynchronous tcgen05 operations (§9.7.16.8.6): for each
// thread, an asynchronous arrive-on (count 1) that first lands the warp's
// tcgen05.st issued before the commit. tcgen05.commit implies
// tcgen05.fence::before_thread_sync.
func execTcCommit(w *Warp, in *Inst) Status {
	x := in.Ext.(*tcInst)
	if st := useGroup(w, x.group); st != Continue {
		return st
	}
	var before []*tmem.PendingStore
	if t, ok := w.CTA.ext[tmemKey].(*ctaTMEM); ok {
		before = t.pendingOf(w.Index)
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		target, off, ok := w.barrierAt(l, in, false)
		if !ok {
			return Fault
		}
		issuer := *w.threadID(l)
		file, pos := w.prog.File, w.prog.Insts[w.pc].Pos
		st := w.IssueFrom(l, &AsyncOp{Kind: "tcgen05.commit", Land: func(c *Cluster) *Report {
			for _, ps := range before {
				ps.Land()
			}
			return commitArrive(target, off, &issuer, file, pos)
		}})
		if st != Continue {
			return st
		}
	}
	return Continue
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
