//go:build !race

package main

// raceEnabled: the tests run under the race detector, which makes code
// several times slower; time budgets scale with it (raceSlowdown).
const (
	raceEnabled  = false
	raceSlowdown = 1
)
