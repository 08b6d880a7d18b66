//go:build race

package lsp

// raceSlowdown scales the tests' time budgets: the race detector makes
// code several times slower.
const raceSlowdown = 10
