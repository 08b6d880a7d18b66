// Package race is the happens-before data-race detector behind
// `ptxkit run --race`. It owns the shadow state of memory (the last write
// and the reads since of every byte of shared, distributed shared and
// global memory), the vector clocks of threads, and the clocks that
// synchronising objects carry (named barriers, the cluster barrier,
// mbarrier phases, release locations, asynchronous operations). It knows
// nothing of the interpreter: the emulator tells it what each thread does
// (an access, an arrival, a wait, a fence) and turns the races it returns
// into reports. docs/race.md describes the model.
package race

import "slices"

// Know is what a thread (or an object that synchronises threads) knows of
// the other threads of its cluster: for each thread slot (and for each
// asynchronous agent slot after them) the clock up to which their
// operations happened before, and, for other clusters of the launch that
// it synchronised with at .gpu or .sys scope, the same per cluster.
//
// A Know referenced by more than one owner is never modified: warps copy
// it before a change (Cluster.own).
type Know struct {
	V       []uint32
	Foreign map[int32][]uint32
}

func newKnow(n int) *Know { return &Know{V: make([]uint32, n)} }

func (k *Know) clone() *Know {
	c := &Know{V: slices.Clone(k.V)}
	if len(k.Foreign) > 0 {
		c.Foreign = make(map[int32][]uint32, len(k.Foreign))
		for cl, v := range k.Foreign {
			c.Foreign[cl] = slices.Clone(v)
		}
	}
	return c
}

// covers reports whether k already knows everything o knows.
func (k *Know) covers(o *Know) bool {
	if k == o || o == nil {
		return true
	}
	for i, x := range o.V {
		if x > k.V[i] {
			return false
		}
	}
	for cl, v := range o.Foreign {
		mine := k.Foreign[cl]
		if mine == nil {
			return false
		}
		for i, x := range v {
			if x > mine[i] {
				return false
			}
		}
	}
	return true
}

// join adds what o knows to k (k must be owned by the caller).
func (k *Know) join(o *Know) {
	if o == nil || k == o {
		return
	}
	joinVec(k.V, o.V)
	for cl, v := range o.Foreign {
		k.joinForeign(cl, v)
	}
}

func (k *Know) joinForeign(cl int32, v []uint32) {
	if k.Foreign == nil {
		k.Foreign = map[int32][]uint32{}
	}
	mine := k.Foreign[cl]
	if mine == nil {
		k.Foreign[cl] = slices.Clone(v)
		return
	}
	joinVec(mine, v)
}

func joinVec(dst, src []uint32) {
	for i, x := range src[:len(dst)] {
		if x > dst[i] {
			dst[i] = x
		}
	}
}

// point raises k's clock of slot s to c.
func (k *Know) point(s, c uint32) {
	if k.V[s] < c {
		k.V[s] = c
	}
}

// Snap is the knowledge a thread releases: its Know plus its own clock.
type Snap struct {
	K    *Know
	Slot uint32
	Clk  uint32
}

// Scope is the scope of a strong operation or fence (PTX ISA §8.5).
type Scope uint8

const (
	ScopeNone    Scope = iota // weak: not a strong operation
	ScopeCTA                  // .cta
	ScopeCluster              // .cluster
	ScopeGPU                  // .gpu
	ScopeSys                  // .sys
)

var scopeNames = [...]string{"weak", ".cta", ".cluster", ".gpu", ".sys"}

func (s Scope) String() string { return scopeNames[s] }
