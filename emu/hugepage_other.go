//go:build !linux

package emu

// adviseHuge does nothing where transparent huge pages are a Linux
// feature the system lacks; memory keeps its base pages.
func adviseHuge(b []byte) {}
