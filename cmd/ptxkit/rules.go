package main

import (
	"sync"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
)

// frontEndRules describes the rules of the parser, the resolver and the
// validator's version and target gates (docs/frontend.md,
// docs/validator.md) for the SARIF log's rule list.
var frontEndRules = map[string]diag.RuleInfo{
	"syntax":                {Summary: "The text is not PTX syntax.", Spec: "PTX ISA 4 (Syntax)"},
	"undeclared-register":   {Summary: "A register is used without a .reg declaration in scope.", Spec: "PTX ISA 5.1.1 (Register State Space)", Help: "Declare the register with .reg, or fix its name."},
	"undeclared-name":       {Summary: "A name is used without a declaration in scope.", Spec: "PTX ISA 4.4 (Identifiers)", Help: "Declare the variable, or fix its name."},
	"undeclared-label":      {Summary: "A branch names a label the function does not define.", Spec: "PTX ISA 4.4 (Identifiers)", Help: "Define the label in the same function, or fix its name."},
	"undeclared-function":   {Summary: "A call names a function the module does not declare.", Spec: "PTX ISA 7.1 (Function declarations and definitions)", Help: "Declare the function (a prototype is enough) before the call."},
	"duplicate-declaration": {Summary: "A name is declared twice in one scope.", Spec: "PTX ISA 4.4 (Identifiers)", Help: "Rename or remove one of the declarations."},
	"register-out-of-range": {Summary: "A register of a parameterized declaration (%r<N>) is used beyond N-1.", Spec: "PTX ISA 5.1.1 (Register State Space)", Help: "Raise N in the .reg declaration."},
	"ptx-version":           {Summary: "The instruction or qualifier needs a newer PTX ISA version than the module declares.", Spec: "PTX ISA Notes of each instruction", Help: "Raise .version, or use a form the declared version has."},
	"target-version":        {Summary: "The instruction or qualifier needs a newer target than the module declares.", Spec: "Target ISA Notes of each instruction", Help: "Raise .target, or use a form the target supports."},
}

var (
	ruleCatalogOnce sync.Once
	ruleCatalog     map[string]diag.RuleInfo
)

// ruleInfo describes a rule id for SARIF: the front end's rules above and
// every rule of the instruction tables (isa), with its section and fix.
func ruleInfo(id string) (diag.RuleInfo, bool) {
	ruleCatalogOnce.Do(func() {
		ruleCatalog = make(map[string]diag.RuleInfo, len(frontEndRules))
		for id, r := range frontEndRules {
			ruleCatalog[id] = r
		}
		for _, in := range isa.Instrs() { // sorted: the first description of a shared id wins
			for _, r := range in.Rules {
				if _, ok := ruleCatalog[r.ID]; !ok {
					ruleCatalog[r.ID] = diag.RuleInfo{Summary: "A constraint between the qualifiers of " + in.Name + ".", Spec: r.Spec, Help: r.Fix}
				}
			}
		}
	})
	r, ok := ruleCatalog[id]
	return r, ok
}
