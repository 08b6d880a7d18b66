//go:build !unix

package resolve_test

import "time"

// cpuTime is not measured on this system; the MB/cpu-s metric is omitted.
func cpuTime() time.Duration { return 0 }
