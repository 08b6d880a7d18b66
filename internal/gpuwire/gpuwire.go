// Package gpuwire is what ptxkit gpu-diff and its driver loader,
// ptxkit-cuda, say to each other: a launch for the GPU and what it left in
// each buffer, as one JSON object each way over the loader's standard
// input and output. Only ptxkit-cuda links the CUDA driver loader
// (internal/cuda, through purego), so that every other command stays a
// static executable that starts without the dynamic loader, and a kernel
// or driver that hangs is a process gpu-diff can kill.
package gpuwire

// Arg is one kernel argument: a buffer (its initial bytes are copied to a
// fresh device allocation whose address is passed) or a scalar of Size
// bytes.
type Arg struct {
	IsBuffer bool
	Buffer   []byte
	Value    uint64
	Size     int // bytes of a scalar parameter: 1, 2, 4 or 8
}

// Launch describes one kernel launch.
type Launch struct {
	Kernel      string
	Grid, Block [3]int
	Cluster     [3]int // CTAs per cluster; zero or 1,1,1 for none
	SharedBytes int
	Args        []Arg
}

// Request is what gpu-diff sends: the module and the launch, or, with
// Probe, only the question whether a driver and a device are usable.
type Request struct {
	Probe  bool
	PTX    []byte
	Launch Launch
}

// Response is what the loader answers.
type Response struct {
	Library  string   // the driver library used
	Buffers  [][]byte // the final contents of each buffer argument (nil for scalars)
	Error    string   // why the launch failed; "" on success
	NoDriver bool     // Error says why no driver is usable (no library, no device)
}
