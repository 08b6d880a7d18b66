package tmem

import "fmt"

// Rule identifies the tensor-memory rule an operation broke. The values are
// stable identifiers suitable for diagnostics.
type Rule string

// Rules checked by this package. The spec section each one comes from is in
// the Spec field of the reported Error.
const (
	// RuleForm: the shape, .num and packing combination is not one of
	// Table 50, or the register count does not match it.
	RuleForm Rule = "tcgen05-form"
	// RuleTaddrMismatch: threads of a warp passed different taddr values.
	RuleTaddrMismatch Rule = "tcgen05-taddr-mismatch"
	// RuleLaneQuarter: a warp accessed lanes outside its quarter.
	RuleLaneQuarter Rule = "tcgen05-lane-quarter"
	// RuleColumnRange: an access reaches column 512 or beyond, or lane 128
	// or beyond.
	RuleColumnRange Rule = "tcgen05-out-of-range"
	// RuleUnallocated: an access touches columns that are not allocated.
	RuleUnallocated Rule = "tcgen05-unallocated"
	// RuleUnwaitedStore: tcgen05.ld reads cells that an earlier tcgen05.st
	// wrote and the writing thread has not executed tcgen05.wait::st since:
	// its own store, or another thread's.
	RuleUnwaitedStore Rule = "tcgen05-ld-unwaited-st"
	// RuleNCols: tcgen05.alloc/dealloc column count not a power of two in
	// [32, 512].
	RuleNCols Rule = "tcgen05-ncols"
	// RuleAllocAfterRelinquish: tcgen05.alloc after the CTA executed
	// tcgen05.relinquish_alloc_permit.
	RuleAllocAfterRelinquish Rule = "tcgen05-alloc-after-relinquish"
	// RuleMixedCTAGroup: tcgen05 instructions of one kernel used both
	// .cta_group::1 and .cta_group::2.
	RuleMixedCTAGroup Rule = "tcgen05-mixed-cta-group"
	// RuleDealloc: tcgen05.dealloc of a range that is not exactly one
	// earlier allocation.
	RuleDealloc Rule = "tcgen05-bad-dealloc"
	// RuleMissingDealloc: tensor memory still allocated when the CTA exits.
	RuleMissingDealloc Rule = "tcgen05-missing-dealloc"
	// RuleCTAGroup: a .cta_group value other than ::1 or ::2.
	RuleCTAGroup Rule = "tcgen05-cta-group"
)

// Spec sections cited by errors (PTX ISA 9.1).
const (
	specTMEM       = "PTX ISA §9.7.16.1 (Tensor Memory)"
	specAddr       = "PTX ISA §9.7.16.1.1 (Tensor Memory addressing)"
	specAlloc      = "PTX ISA §9.7.16.7.1 (tcgen05.alloc, tcgen05.dealloc, tcgen05.relinquish_alloc_permit)"
	specCTAGroup   = "PTX ISA §9.7.16.5.1 (CTA pair); §9.7.16.7.1"
	specAccess     = "PTX ISA §9.7.16.8.1 (access restrictions: warp q of a warpgroup owns lanes 32q..32q+31)"
	specStore      = "PTX ISA §9.7.16.8.4 (tcgen05.st)"
	specLoad       = "PTX ISA §9.7.16.8.3 (tcgen05.ld)"
	specTable50    = "PTX ISA §9.7.16.8.4 (tcgen05.st), Table 50 (.num and .shape)"
	specWait       = "PTX ISA §9.7.16.8.5 (tcgen05.wait); §9.7.16.6 (tcgen05 memory consistency)"
	specAllocation = "PTX ISA §9.7.16.1.2 (Tensor Memory allocation)"
)

// Error is a broken tensor-memory rule.
type Error struct {
	Rule    Rule
	Message string // what is wrong, with the values involved
	Spec    string // the spec section the rule comes from
}

func (e *Error) Error() string { return fmt.Sprintf("%s [%s]", e.Message, e.Rule) }

func errorf(rule Rule, spec, format string, args ...any) *Error {
	return &Error{Rule: rule, Spec: spec, Message: fmt.Sprintf(format, args...)}
}
