package exec

import (
	"testing"

	"github.com/ptxkit/ptxkit/sass"
)

// FuzzExec runs arbitrary decodable words against small windows: Exec must
// never panic, and a store that succeeds stays inside the allocation.
func FuzzExec(f *testing.F) {
	f.Add(uint64(0xef5e000001070204), uint64(0), uint32(16), false)
	f.Add(uint64(0x0000100400007388), uint64(0x000fe20000000c00), uint32(0xfffffff0), true)
	f.Fuzz(func(t *testing.T, lo, hi uint64, r uint32, trap bool) {
		arch := sass.Arch{SM: 50}
		if hi != 0 {
			arch = sass.Arch{SM: 90}
		}
		in, err := sass.Decode(sass.Word{Lo: lo, Hi: hi}, arch)
		if err != nil {
			return
		}
		local, shared := make(Bytes, 32), make(Bytes, 64)
		th := &Thread{Local: &Window{Name: "local", Mem: local}, Shared: &Window{Name: "shared", Mem: shared, Limit: 128}}
		for i := range th.R {
			th.R[i] = r + uint32(i)
		}
		for i := range th.UR {
			th.UR[i] = r >> 3
		}
		_ = Exec(in, arch, th, Config{TrapMisaligned: trap})
	})
}
