package lsp

import (
	"sort"

	"github.com/ptxkit/ptxkit/isa"
)

// specialNames are the special registers completion offers, in order:
// all but the members of the numbered families (%pm<n>, %pm<n>_64,
// %envreg<n>).
func specialNames() []string {
	var names []string
	for _, r := range isa.SRegs() {
		switch r.Kind {
		case isa.SRegPM, isa.SRegPM64, isa.SRegEnvreg:
			continue
		}
		names = append(names, r.Name)
	}
	sort.Strings(names)
	return names
}
