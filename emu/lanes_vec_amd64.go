package emu

// SSE2 forms of the whole-warp kernels (lanes_vec.go, lanes_vec_amd64.s).

//go:noescape
func addLanes(d, a, b *[32]uint64, mask uint64)

//go:noescape
func subLanes(d, a, b *[32]uint64, mask uint64)

//go:noescape
func andLanes(d, a, b *[32]uint64, mask uint64)

//go:noescape
func orLanes(d, a, b *[32]uint64, mask uint64)

//go:noescape
func xorLanes(d, a, b *[32]uint64, mask uint64)
