package main

import (
	"fmt"
	"time"

	"github.com/ptxkit/ptxkit/internal/cuda"
)

// defaultGPUTimeout bounds the driver's side of gpu-diff: opening the
// driver, the module load (which compiles the PTX), the launch and the
// copies back. A test kernel takes milliseconds and the largest module a
// few seconds to compile; a minute is past anything but a hang.
const defaultGPUTimeout = time.Minute

// gpuSide is the CUDA driver of a gpu-diff run, every call to which is
// bounded by timeout. A call into the driver cannot be interrupted, so it
// runs on a goroutine of its own; past the deadline it is abandoned (it
// goes on blocking in the driver) and the driver is never called again,
// not even to close it: the process exits after the report and the
// operating system releases the GPU context with it.
type gpuSide struct {
	drv       *cuda.Driver
	timeout   time.Duration // 0: no bound
	abandoned bool          // a call did not return in time
}

// errGPUTimeout is the error of a driver call abandoned past its deadline.
type errGPUTimeout struct {
	what    string
	timeout time.Duration
}

func (e *errGPUTimeout) Error() string {
	return fmt.Sprintf("%s did not finish within %v (--gpu-timeout): the kernel or the driver hangs; abandoned", e.what, e.timeout)
}

// do runs call, which calls the driver, and returns its error, or an
// *errGPUTimeout when it has not returned after g.timeout.
func (g *gpuSide) do(what string, call func() error) error {
	if g.abandoned {
		return &errGPUTimeout{what, g.timeout}
	}
	if g.timeout <= 0 {
		return call()
	}
	done := make(chan error, 1) // buffered: an abandoned call still finishes its send
	go func() { done <- call() }()
	t := time.NewTimer(g.timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		g.abandoned = true
		return &errGPUTimeout{what, g.timeout}
	}
}

// close closes the driver unless a call was abandoned (the driver is then
// busy, and closing it could block as well).
func (g *gpuSide) close() {
	if g.drv != nil && !g.abandoned {
		g.drv.Close()
	}
}
