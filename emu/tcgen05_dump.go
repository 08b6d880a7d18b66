package emu

import (
	"sync"

	"github.com/ptxkit/ptxkit/emu/tmem"
)

// TMEMSnapshot is the Tensor Memory of one CTA as it was when the CTA
// exited or the run stopped (Launch.TMEMOf, `ptxkit run --dump-tmem`).
type TMEMSnapshot struct {
	CTA [3]int       // %ctaid
	Mem *tmem.Memory // tracks writers: a Writer's Site is 1 + the index in Program.Insts of the tcgen05.st
}

// tmemRequest is a launch's request for the Tensor Memory of one CTA.
type tmemRequest struct {
	mu   sync.Mutex // clusters running in parallel may create memories at once
	cta  [3]int
	snap *TMEMSnapshot
}

// captureTMEM hands CTA c's newly created Tensor Memory m to the launch's
// request and reports whether it did (m must then not be recycled).
func captureTMEM(c *CTA, m *tmem.Memory) bool {
	r := c.cluster.cfg.obs.tmem
	if r == nil || r.cta != c.ID {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.snap = &TMEMSnapshot{CTA: c.ID, Mem: m}
	return true
}
