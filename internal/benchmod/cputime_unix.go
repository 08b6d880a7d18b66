//go:build unix

package benchmod

import (
	"syscall"
	"time"
)

// CPUTime returns the user plus system CPU time of the process, all
// threads (the garbage collector's included).
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
