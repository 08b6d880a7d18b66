//go:build !linux

package main

import "io"

// readSource returns the contents of the PTX file name ("-": stdin) for
// check.
func readSource(name string, stdin io.Reader) ([]byte, error) { return readInput(name, stdin) }
