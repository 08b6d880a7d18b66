package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptxkit/ptxkit/internal/gpuwire"
)

// defaultGPUTimeout bounds each call of gpu-diff into the driver's side:
// opening the driver, and the module load (which compiles the PTX), the
// launch and the copies back. A test kernel takes milliseconds and the
// largest module a few seconds to compile; a minute is past anything but a
// hang.
const defaultGPUTimeout = time.Minute

// loaderName is the program that loads the CUDA driver for gpu-diff
// (cmd/ptxkit-cuda). Only it links the driver loader, which would make
// every command a dynamically linked executable, slower to start.
const loaderName = "ptxkit-cuda"

// errNoGPU wraps every reason there is no GPU to compare with: no loader,
// no driver library, no device.
var errNoGPU = errors.New("no usable CUDA driver")

// gpuSide is the driver's side of a gpu-diff run: each call runs the
// loader as a process of its own, bounded by timeout (0: none). A call
// past its deadline is killed with its process, which releases whatever
// the driver held.
type gpuSide struct {
	timeout time.Duration
}

// errGPUTimeout is the error of a call killed past its deadline.
type errGPUTimeout struct {
	what    string
	timeout time.Duration
}

func (e *errGPUTimeout) Error() string {
	return fmt.Sprintf("%s did not finish within %v (--gpu-timeout): the kernel or the driver hangs; killed", e.what, e.timeout)
}

// loaderPath finds ptxkit-cuda: $PTXKIT_CUDA_LOADER, else beside the
// running executable, else on PATH.
func loaderPath() (string, error) {
	if p := os.Getenv("PTXKIT_CUDA_LOADER"); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), loaderName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(loaderName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: the driver loader %s is not installed beside ptxkit nor on PATH (go install ./cmd/... installs both)", errNoGPU, loaderName)
}

// call sends req to a new loader process and returns its answer. what
// names the call in a timeout's message.
func (g *gpuSide) call(what string, req *gpuwire.Request) (*gpuwire.Response, error) {
	path, err := loaderPath()
	if err != nil {
		return nil, err
	}
	in, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if g.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, path)
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second // a grandchild holding the pipes does not hold us
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, &errGPUTimeout{what, g.timeout}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v %s", path, err, strings.TrimSpace(errb.String()))
	}
	var resp gpuwire.Response
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
		return nil, fmt.Errorf("%s: unreadable answer: %v", path, err)
	}
	switch {
	case resp.NoDriver:
		return nil, fmt.Errorf("%w: %s", errNoGPU, strings.TrimPrefix(resp.Error, errNoGPU.Error()+": "))
	case resp.Error != "":
		return nil, errors.New(resp.Error)
	case !req.Probe && len(resp.Buffers) != len(req.Launch.Args):
		return nil, fmt.Errorf("%s answered %d buffers for %d arguments", path, len(resp.Buffers), len(req.Launch.Args))
	}
	return &resp, nil
}
