// Package mbarrier models PTX mbarrier objects (PTX ISA §9.7.13.15): 8-byte
// objects in shared memory that count thread arrivals and asynchronous
// transaction bytes per phase.
//
// The package has two layers. Object is the pure state machine: a value with
// a phase, pending and expected arrival counts and a signed tx-count, whose
// methods implement init, inval, arrive (with count and .noComplete),
// arrive_drop, expect-tx, complete-tx, test_wait/try_wait (token and .parity
// forms) and pending_count, returning typed *Error values that cite the rule
// they break. Table keeps the objects of one CTA's shared memory: it decides
// liveness (so use before init and init of a live object are detected), keeps
// a full phase counter per object, and verifies that the 8 bytes in emulated
// memory still hold what the last mbarrier operation wrote (so a plain store
// over a live object is detected).
//
// # Memory encoding
//
// An object lives in emulated memory as one little-endian 64-bit word:
//
//	bits  0..19  pending arrival count      [0, 2^20-1]      (§9.7.13.15.2)
//	bits 20..39  expected arrival count     [1, 2^20-1]
//	bits 40..60  tx-count, two's complement [-(2^20-1), 2^20-1]
//	bits 61..63  current phase modulo 8
//
// Every field is stored in full, so the bytes are the object: a kernel that
// loads them sees a value that changes with every operation. A live object
// always has a non-zero expected count, so zeroed shared memory never decodes
// as a live object; a word whose tx field holds -2^20 is never produced and
// decodes as corrupt. The encoding is implementation-defined, as the manual
// allows (§9.7.13.15.2: "opaque object").
//
// # State tokens
//
// The .b64 state returned by arrive (§9.7.13.15.13) is encoded as:
//
//	bits  0..2   phase modulo 8 before the arrival
//	bit   3      the arrival was .noComplete
//	bits  4..23  pending arrival count before the arrival
//	bits 24..55  address of the object >> 3 (identifies the object)
//	bit  63      1 (marks a token; 0 is never a valid token)
//
// A token therefore names its object and phase, so waiting with a token of
// another object, or of a phase that is two or more phases old, is reported.
// Staleness is exact for tokens up to 7 phases old; older tokens alias.
package mbarrier

import (
	"fmt"
)

// Object geometry (§9.7.13.15.1).
const (
	Size  = 8 // bytes
	Align = 8 // bytes
)

// Documented ranges of the object's counts (§9.7.13.15.2).
const (
	MaxCount = 1<<20 - 1 // maximum pending or expected arrival count
	MaxTx    = 1<<20 - 1 // maximum |tx-count|
)

// PhaseModulus is the number of distinct phase values held by the object's
// bytes and by tokens.
const PhaseModulus = 8

// Object is the state of one mbarrier object (§9.7.13.15.2). The zero Object
// is not a live object.
type Object struct {
	Phase    uint8  // current phase modulo PhaseModulus
	Pending  uint32 // arrivals still missing in the current phase
	Expected uint32 // arrivals each phase starts with
	Tx       int32  // tx-count: bytes expected but not yet completed
}

const (
	pendingShift  = 0
	expectedShift = 20
	txShift       = 40
	phaseShift    = 61
	countMask     = 1<<20 - 1
	txMask        = 1<<21 - 1
)

// Encode returns the object's memory word (see the package comment).
func (o Object) Encode() uint64 {
	return uint64(o.Pending&countMask)<<pendingShift |
		uint64(o.Expected&countMask)<<expectedShift |
		(uint64(int64(o.Tx))&txMask)<<txShift |
		uint64(o.Phase%PhaseModulus)<<phaseShift
}

// Decode reads a memory word. ok is false when the word cannot hold a live
// object: an expected count of zero, or a tx field outside its range.
func Decode(w uint64) (o Object, ok bool) {
	o.Pending = uint32(w>>pendingShift) & countMask
	o.Expected = uint32(w>>expectedShift) & countMask
	tx := int64(w>>txShift) & txMask
	if tx >= 1<<20 {
		tx -= 1 << 21
	}
	o.Tx = int32(tx)
	o.Phase = uint8(w >> phaseShift)
	return o, o.Expected != 0 && tx >= -MaxTx
}

// Parity returns the parity of the current phase (§9.7.13.15.16).
func (o Object) Parity() uint32 { return uint32(o.Phase & 1) }

// String describes the object for reports, e.g.
// "phase 3 (parity 1), 1 of 2 arrivals pending, tx-count 16".
func (o Object) String() string {
	return fmt.Sprintf("phase %d (parity %d), %d of %d arrivals pending, tx-count %d",
		o.Phase, o.Parity(), o.Pending, o.Expected, o.Tx)
}

// Token is the opaque .b64 state an arrive operation returns (see the
// package comment for its encoding).
type Token uint64

const (
	tokenValid      = 1 << 63
	tokenNoComplete = 1 << 3
	tokenPendShift  = 4
	tokenAddrShift  = 24
	tokenAddrMask   = 1<<32 - 1
)

// MakeToken builds the token of an arrival on the object at addr while it
// was in phase with pending arrivals outstanding.
func MakeToken(addr uint64, phase uint8, pending uint32, noComplete bool) Token {
	t := uint64(tokenValid) | uint64(phase%PhaseModulus) |
		uint64(pending&countMask)<<tokenPendShift |
		(addr>>3)&tokenAddrMask<<tokenAddrShift
	if noComplete {
		t |= tokenNoComplete
	}
	return Token(t)
}

// Valid reports whether t has the shape of a token.
func (t Token) Valid() bool { return t&tokenValid != 0 }

// Phase returns the phase (modulo PhaseModulus) the token was taken in.
func (t Token) Phase() uint8 { return uint8(t & (PhaseModulus - 1)) }

// Pending returns the pending arrival count before the arrival.
func (t Token) Pending() uint32 { return uint32(t>>tokenPendShift) & countMask }

// NoComplete reports whether the arrival was .noComplete.
func (t Token) NoComplete() bool { return t&tokenNoComplete != 0 }

// Names reports whether t was produced by an arrival on the object at addr.
func (t Token) Names(addr uint64) bool {
	return uint64(t>>tokenAddrShift)&tokenAddrMask == (addr>>3)&tokenAddrMask
}
