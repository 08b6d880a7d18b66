// Package check validates a parsed PTX module against the instruction
// tables of package isa: qualifier legality, operand shapes and types,
// state spaces, and PTX ISA version and target gating.
package check

import (
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Config overrides what the module declares.
type Config struct {
	Target string // e.g. "sm_90a"; "" uses the module's .target
	PTX    string // e.g. "8.5"; "" uses the module's .version
}

// Module validates m and returns its diagnostics. It assumes m parsed and
// resolved without errors; it never panics on a partial tree.
func Module(m *ast.Module, cfg Config) diag.List {
	return nil
}
