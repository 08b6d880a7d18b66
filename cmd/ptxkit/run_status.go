package main

import "github.com/ptxkit/ptxkit/diag"

// decodeStatus is the exit status of run and gpu-diff when the emulator's
// decoder reports errs: a valid program that needs only what the emulator
// does not support (every error "emu-unsupported") is a run stopped early,
// exit 3 as README.md says; anything else means the program is wrong,
// exit 1.
func decodeStatus(errs diag.List) int {
	for _, d := range errs {
		if d.Severity == diag.Error && d.Rule != "emu-unsupported" {
			return exitFail
		}
	}
	return exitSanitize
}
