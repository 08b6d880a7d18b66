package mbarrier

import (
	"errors"
	"fmt"
)

// Kind classifies a misuse of an mbarrier object. Each kind is undefined
// behaviour in the PTX ISA; Rule and Spec name the rule it breaks.
type Kind uint8

// Kinds of misuse.
const (
	Uninitialized  Kind = iota + 1 // operation other than init on an object that is not live
	InitLive                       // init of a live object without inval
	CountRange                     // arrival or expected count outside its range
	TxRange                        // tx-count outside [-(2^20-1), 2^20-1]
	StalePhase                     // wait with a token of a phase that is no longer current or previous
	NoCompleteDone                 // .noComplete arrival that completes the phase
	Misaligned                     // object address not 8-byte aligned
	ForeignToken                   // token not produced by an arrival on this object
	NotNoComplete                  // pending_count on a token not from a .noComplete arrival
	Clobbered                      // object bytes changed by a non-mbarrier access
)

var kindInfo = [...]struct{ rule, spec, text string }{
	Uninitialized:  {"mbarrier-uninit", "PTX ISA §9.7.13.15.9 (mbarrier.init)", "object is not initialized (never initialized, or invalidated)"},
	InitLive:       {"mbarrier-init-live", "PTX ISA §9.7.13.15.10 (mbarrier.inval)", "init of a live object; invalidate it with mbarrier.inval first"},
	CountRange:     {"mbarrier-count-range", "PTX ISA §9.7.13.15.2 (contents of the mbarrier object)", "arrival count out of range"},
	TxRange:        {"mbarrier-tx-range", "PTX ISA §9.7.13.15.2 (contents of the mbarrier object)", "tx-count out of range [-(2^20-1), 2^20-1]"},
	StalePhase:     {"mbarrier-stale-phase", "PTX ISA §9.7.13.15.16 (mbarrier.test_wait/try_wait)", "wait on a stale phase"},
	NoCompleteDone: {"mbarrier-nocomplete", "PTX ISA §9.7.13.15.13 (mbarrier.arrive)", ".noComplete arrival completes the phase"},
	Misaligned:     {"mbarrier-align", "PTX ISA §9.7.13.15.1 (size and alignment of mbarrier object)", "object address is not 8-byte aligned"},
	ForeignToken:   {"mbarrier-token", "PTX ISA §9.7.13.15.16 (mbarrier.test_wait/try_wait)", "state token does not belong to this object"},
	NotNoComplete:  {"mbarrier-pending-count", "PTX ISA §9.7.13.15.17 (mbarrier.pending_count)", "state token was not produced by a .noComplete arrival"},
	Clobbered:      {"mbarrier-clobbered", "PTX ISA §9.7.13.15.1 (mbarrier object)", "live object modified by a non-mbarrier access"},
}

func (k Kind) valid() bool { return k > 0 && int(k) < len(kindInfo) }

// Rule returns the stable rule id of the kind, e.g. "mbarrier-uninit".
func (k Kind) Rule() string {
	if !k.valid() {
		return "mbarrier"
	}
	return kindInfo[k].rule
}

// Spec returns the spec section the kind's rule comes from.
func (k Kind) Spec() string {
	if !k.valid() {
		return "PTX ISA §9.7.13.15"
	}
	return kindInfo[k].spec
}

func (k Kind) String() string {
	if !k.valid() {
		return fmt.Sprintf("Kind(%d)", uint8(k))
	}
	return kindInfo[k].text
}

// Error is a misuse of an mbarrier object.
type Error struct {
	Kind   Kind
	Op     string // PTX operation, e.g. "mbarrier.arrive"; "" when unknown
	Addr   uint64 // object address (shared::cta offset)
	Detail string // the values involved
}

func (e *Error) Error() string {
	msg := e.Kind.String()
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Op != "" {
		msg = fmt.Sprintf("%s on mbarrier at %#x: %s", e.Op, e.Addr, msg)
	}
	return msg + " (" + e.Kind.Spec() + ")"
}

// Is makes errors.Is(err, &Error{Kind: k}) match every error of kind k.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind && t.Op == "" && t.Detail == ""
}

// KindOf returns the kind of an *Error in err's chain, or 0.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

func errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Detail: fmt.Sprintf(format, args...)}
}
