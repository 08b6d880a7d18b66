// Command ptxkit-cuda is the CUDA driver loader of ptxkit gpu-diff: it
// reads one launch (internal/gpuwire.Request, JSON) on standard input,
// runs it on GPU 0 through the driver (libcuda.so.1, or the file
// PTXKIT_LIBCUDA names) and writes what the kernel left in each buffer
// (gpuwire.Response, JSON) on standard output. It is a program of its own
// so that only it links the driver loader, which makes an executable
// dynamically linked and slower to start, and so that gpu-diff can kill a
// launch that never returns. Install it beside ptxkit: go install
// ./cmd/... from a clone.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ptxkit/ptxkit/internal/cuda"
	"github.com/ptxkit/ptxkit/internal/gpuwire"
)

func main() {
	os.Exit(serve(os.Stdin, os.Stdout, os.Stderr))
}

// maxRequestBytes bounds the request: the module (at most 32 MiB, as ptxkit
// run reads) and the buffers (at most 1 GiB together), base64 in JSON.
const maxRequestBytes = 2 << 30

// serve answers one request; the exit status is 0 when an answer was
// written (a failed launch included), 2 when the request was unreadable.
func serve(in io.Reader, out, errw io.Writer) int {
	var req gpuwire.Request
	if err := json.NewDecoder(io.LimitReader(in, maxRequestBytes)).Decode(&req); err != nil {
		fmt.Fprintf(errw, "ptxkit-cuda: reading the request: %v\n", err)
		return 2
	}
	resp := launch(&req)
	if err := json.NewEncoder(out).Encode(resp); err != nil {
		fmt.Fprintf(errw, "ptxkit-cuda: %v\n", err)
		return 2
	}
	return 0
}

func launch(req *gpuwire.Request) *gpuwire.Response {
	drv, err := cuda.Open()
	if err != nil {
		return &gpuwire.Response{Error: err.Error(), NoDriver: errors.Is(err, cuda.ErrNoDriver)}
	}
	defer drv.Close()
	if req.Probe {
		return &gpuwire.Response{Library: drv.Library}
	}
	bufs, err := drv.Run(req.PTX, req.Launch)
	if err != nil {
		return &gpuwire.Response{Library: drv.Library, Error: err.Error()}
	}
	return &gpuwire.Response{Library: drv.Library, Buffers: bufs}
}
