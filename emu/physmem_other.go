//go:build !linux

package emu

// physicalMemory returns 0 (unknown) where the system call is not used.
func physicalMemory() uint64 { return 0 }
