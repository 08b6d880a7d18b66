//go:build !amd64

package emu

func addLanes(d, a, b *[32]uint64, mask uint64) { addLanesGo(d, a, b, mask) }
func subLanes(d, a, b *[32]uint64, mask uint64) { subLanesGo(d, a, b, mask) }
func andLanes(d, a, b *[32]uint64, mask uint64) { andLanesGo(d, a, b, mask) }
func orLanes(d, a, b *[32]uint64, mask uint64)  { orLanesGo(d, a, b, mask) }
func xorLanes(d, a, b *[32]uint64, mask uint64) { xorLanesGo(d, a, b, mask) }

func shrLanes32(d, a, b *[32]uint64) { shrLanes32Go(d, a, b) }
func shlLanes32(d, a, b *[32]uint64) { shlLanes32Go(d, a, b) }

func madLo32Lanes(d, a, b, c *[32]uint64) { madLo32LanesGo(d, a, b, c) }
func mulLo32Lanes(d, a, b *[32]uint64)    { mulLo32LanesGo(d, a, b) }
