//go:build !amd64

package emu

import "unsafe"

func addLanes(d, a, b *[32]uint64, mask uint64) { addLanesGo(d, a, b, mask) }
func subLanes(d, a, b *[32]uint64, mask uint64) { subLanesGo(d, a, b, mask) }
func andLanes(d, a, b *[32]uint64, mask uint64) { andLanesGo(d, a, b, mask) }
func orLanes(d, a, b *[32]uint64, mask uint64)  { orLanesGo(d, a, b, mask) }
func xorLanes(d, a, b *[32]uint64, mask uint64) { xorLanesGo(d, a, b, mask) }

func shrLanes32(d, a, b *[32]uint64) { shrLanes32Go(d, a, b) }
func shlLanes32(d, a, b *[32]uint64) { shlLanes32Go(d, a, b) }

func madLo32Lanes(d, a, b, c *[32]uint64) { madLo32LanesGo(d, a, b, c) }
func mulLo32Lanes(d, a, b *[32]uint64)    { mulLo32LanesGo(d, a, b) }

func cmpEq32Lanes(p, x, y *[32]uint64, inv uint64) { cmpEq32LanesGo(p, x, y, inv) }
func cmpGt32Lanes(p, x, y *[32]uint64, flip uint32, inv uint64) {
	cmpGt32LanesGo(p, x, y, flip, inv)
}
func shrS32Lanes(d, a, b *[32]uint64) { shrS32LanesGo(d, a, b) }

func selpLanes(d, a, b, c *[32]uint64, mask uint64) { selpLanesGo(d, a, b, c, mask) }

func fmaF32Lanes(d, a, b, c *[32]uint64) { fmaF32LanesGo(d, a, b, c) }

func stV4x32Lanes(p unsafe.Pointer, addr *[32]uint64, rel uint64, x, y, z, u *[32]uint64) {
	stV4x32LanesGo(p, addr, rel, x, y, z, u)
}

func ldV4x32Lanes(p unsafe.Pointer, addr *[32]uint64, rel uint64, x, y, z, u *[32]uint64) {
	ldV4x32LanesGo(p, addr, rel, x, y, z, u)
}
