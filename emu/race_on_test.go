//go:build race

package emu

// raceSlowdown scales the tests' time budgets: the race detector makes
// the emulator several times slower.
const raceSlowdown = 10
