package check

import (
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
)

// ptxas13Since is the first PTX ISA version ptxas 13.0 alone decides: ptxas
// 12.5 knows PTX ISA up to 8.5.
var ptxas13Since = isa.V(8, 6)

// followsPtxas13 reports whether the validator follows ptxas 13.0 where it
// accepts a form the pages forbid (Config.Ptxas).
func (c *checker) followsPtxas13() bool {
	switch c.cfg.Ptxas {
	case "13.0":
		return true
	case "12.5":
		return false
	}
	return c.version >= ptxas13Since
}

// againstPage returns the severity and message of a violation of the
// pages that ptxas 13.0 accepts: an error where the validator follows
// ptxas 12.5 (which rejects every such form) or is strict, a warning
// otherwise.
func (c *checker) againstPage(msg string) (diag.Severity, string) {
	if !c.followsPtxas13() {
		return diag.Error, msg
	}
	msg += " (ptxas 13.0 accepts it)"
	if c.cfg.Strict {
		return diag.Error, msg
	}
	return diag.Warning, msg
}
