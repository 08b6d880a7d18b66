//go:build !unix

package benchmod

import "time"

// CPUTime is not measured on this system; ReportCPU then reports nothing.
func CPUTime() time.Duration { return 0 }
