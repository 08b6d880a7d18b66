package emu

import (
	"sync"

	"github.com/ptxkit/ptxkit/emu/tmem"
)

// TMEMSnapshot is the Tensor Memory of one CTA as it was when the CTA
// exited or the run stopped, for `ptxkit run --dump-tmem`.
type TMEMSnapshot struct {
	CTA [3]int // %ctaid
	Mem *tmem.Memory
}

var (
	tmemDumpMu    sync.Mutex
	tmemDumpSinks = map[*Program]*tmemDumpRequest{}
)

type tmemDumpRequest struct {
	cta  [3]int
	snap *TMEMSnapshot
}

// CaptureTMEM makes launches of p keep the Tensor Memory of the CTA with
// %ctaid cta; after the launch TMEMOf returns it as the CTA left it (at
// exit, or where a sanitizer report stopped the run). A CTA that never ran
// a tcgen05 instruction leaves nothing to capture.
func CaptureTMEM(p *Program, cta [3]int) {
	tmemDumpMu.Lock()
	defer tmemDumpMu.Unlock()
	tmemDumpSinks[p] = &tmemDumpRequest{cta: cta}
}

// TMEMOf returns the snapshot CaptureTMEM asked for (nil when the CTA did
// not use Tensor Memory) and stops capturing for p.
func TMEMOf(p *Program) *TMEMSnapshot {
	tmemDumpMu.Lock()
	defer tmemDumpMu.Unlock()
	r := tmemDumpSinks[p]
	delete(tmemDumpSinks, p)
	if r == nil {
		return nil
	}
	return r.snap
}

// captureTMEM hands CTA c's newly created Tensor Memory m to a pending
// request and reports whether it did (m must then not be recycled).
func captureTMEM(c *CTA, m *tmem.Memory) bool {
	tmemDumpMu.Lock()
	defer tmemDumpMu.Unlock()
	if r := tmemDumpSinks[c.cluster.prog]; r != nil && r.cta == c.ID {
		r.snap = &TMEMSnapshot{CTA: c.ID, Mem: m}
		return true
	}
	return false
}
