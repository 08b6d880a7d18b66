package emu

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Schedule records, or forces, the scheduling choices of a seeded launch:
// the order of warps in each round, each warp's time slice, the delay and
// the landing order of asynchronous operations, and spurious try_wait
// failures. Every choice has a neutral value (warps in order, the longest
// slice, no delay, the oldest operation first, no spurious failure); a
// forced schedule gives the choices it names their value and every other
// choice its neutral one, so that `ptxkit run --explore` can shrink a
// schedule that shows a race to the few choices it needs
// (cmd/ptxkit/run_explore.go).
type Schedule struct {
	// Force, when non-nil, fixes the choices: the choice at each
	// position it names takes that value (modulo the choice's range),
	// every other choice its neutral value.
	Force map[ChoiceAt]int

	mu  sync.Mutex
	log map[int][]Choice
}

// ChoiceAt names the Pos-th scheduling choice of cluster Cluster.
type ChoiceAt struct{ Cluster, Pos int }

// Choice is one scheduling choice as it was made.
type Choice struct {
	Kind           ChoiceKind
	N              int // the choice's range: 0 to N-1
	Value, Neutral int
}

// ChoiceKind says what a scheduling choice decides.
type ChoiceKind uint8

const (
	ChoiceWarpOrder ChoiceKind = iota // the warp swapped into a round's position
	ChoiceSlice                       // a warp's time slice, less one
	ChoiceDelay                       // an asynchronous operation's delay
	ChoiceLand                        // which pending operation lands
	ChoiceSpurious                    // a try_wait that fails spuriously (0)
)

var choiceNames = [...]string{"warp order", "time slice", "async delay", "landing", "try_wait"}

func (k ChoiceKind) String() string { return choiceNames[k] }

// ForceOrNil returns s's forced choices (nil for a nil schedule).
func (s *Schedule) ForceOrNil() map[ChoiceAt]int {
	if s == nil {
		return nil
	}
	return s.Force
}

// Choices returns the choices cluster made, in order.
func (s *Schedule) Choices(cluster int) []Choice {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log[cluster]
}

// Clusters returns the clusters that made choices, in order.
func (s *Schedule) Clusters() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for c := range s.log {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

func (s *Schedule) note(cluster int, c Choice) {
	s.mu.Lock()
	if s.log == nil {
		s.log = map[int][]Choice{}
	}
	s.log[cluster] = append(s.log[cluster], c)
	s.mu.Unlock()
}

// choose makes a scheduling choice of kind k in [0, n): from the seeded
// generator, or under a forced schedule its forced or neutral value.
func (c *Cluster) choose(k ChoiceKind, n, neutral int) int {
	s := c.cfg.Schedule
	if s == nil {
		return c.rng.intn(n)
	}
	v := 0
	switch {
	case s.Force == nil:
		v = c.rng.intn(n)
	default:
		f, ok := s.Force[ChoiceAt{c.Index, c.choices}]
		v = neutral
		if ok {
			v = f % n
		}
	}
	c.choices++
	s.note(c.Index, Choice{Kind: k, N: n, Value: v, Neutral: neutral})
	return v
}

// FormatSchedule writes forced choices as --schedule takes them:
// CLUSTER:POS=VALUE, comma-separated, in order.
func FormatSchedule(force map[ChoiceAt]int) string {
	keys := make([]ChoiceAt, 0, len(force))
	for k := range force {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Cluster != keys[j].Cluster {
			return keys[i].Cluster < keys[j].Cluster
		}
		return keys[i].Pos < keys[j].Pos
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d:%d=%d", k.Cluster, k.Pos, force[k])
	}
	return strings.Join(parts, ",")
}

// ParseSchedule reads the forced choices of --schedule (FormatSchedule's
// form; "" or "neutral" for none).
func ParseSchedule(s string) (map[ChoiceAt]int, error) {
	force := map[ChoiceAt]int{}
	if s == "" || s == "neutral" {
		return force, nil
	}
	for i, part := range strings.Split(s, ",") {
		at, val, ok1 := strings.Cut(part, "=")
		cl, pos, ok2 := strings.Cut(at, ":")
		c, e1 := strconv.Atoi(cl)
		p, e2 := strconv.Atoi(pos)
		v, e3 := strconv.Atoi(val)
		if !ok1 || !ok2 || e1 != nil || e2 != nil || e3 != nil || c < 0 || p < 0 || v < 0 {
			return nil, fmt.Errorf("--schedule: choice %d %q: want CLUSTER:POS=VALUE with numbers from 0", i+1, part)
		}
		force[ChoiceAt{c, p}] = v
	}
	return force, nil
}
