package emu

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// matchKernel stores, per thread, match.any and match.all (with its
// predicate) of in[tid] over the lanes that execute it (tid < active).
const matchKernel = header + `
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 active, .param .u32 mask)
{
	.reg .b64 %rd<8>;
	.reg .b32 %r<12>;
	.reg .pred %p<4>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r9, [active];
	ld.param.u32 %r10, [mask];
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, %r9;
	@%p1 bra DONE;
	mul.wide.u32 %rd3, %r1, 8;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.u64 %rd5, [%rd4];
	cvt.u32.u64 %r2, %rd5;
	match.any.sync.b32 %r3, %r2, %r10;
	match.all.sync.b32 %r4|%p2, %r2, %r10;
	selp.u32 %r5, 1, 0, %p2;
	match.any.sync.b64 %r6, %rd5, %r10;
	match.all.sync.b64 %r7|%p3, %rd5, %r10;
	selp.u32 %r8, 1, 0, %p3;
	mul.wide.u32 %rd6, %r1, 32;
	add.u64 %rd7, %rd2, %rd6;
	st.global.v2.u32 [%rd7], {%r3, %r4};
	st.global.v4.u32 [%rd7+16], {%r5, %r6, %r7, %r8};
DONE:
	ret;
}
`

// TestMatchSync checks match.any/all.sync (§9.7.13.13) on full and
// partial warps: .any gives the lanes holding the same value, .all the
// member mask when every member holds it.
func TestMatchSync(t *testing.T) {
	cases := []struct {
		name   string
		vals   func(l int) uint64
		active int
	}{
		{"groups", func(l int) uint64 { return uint64(l%5) | uint64(l%2)<<40 }, 32},
		{"uniform", func(l int) uint64 { return 0xabcd00000007 }, 32},
		{"partial", func(l int) uint64 { return uint64(l / 7) }, 20},
		{"same low word", func(l int) uint64 { return uint64(l&1)<<32 | 9 }, 32},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := make([]byte, 8*32)
			for l := range 32 {
				binary.LittleEndian.PutUint64(in[8*l:], c.vals(l))
			}
			members := uint32(1<<c.active - 1)
			res := launch(t, matchKernel, Config{Block: dims(32, 1, 1)},
				Arg{IsBuffer: true, Buffer: in}, buf(32*32), scalar(uint64(c.active)), scalar(uint64(members)))
			out := u32s(res.Buffers[1].Data)
			for l := range c.active {
				var any32, any64 uint32
				for j := range c.active {
					if uint32(c.vals(j)) == uint32(c.vals(l)) {
						any32 |= 1 << j
					}
					if c.vals(j) == c.vals(l) {
						any64 |= 1 << j
					}
				}
				all32, all64 := any32 == members, any64 == members
				want := []uint32{any32, members * uint32(b2i(all32)), uint32(b2i(all32)), any64, members * uint32(b2i(all64)), uint32(b2i(all64))}
				got := append(append([]uint32(nil), out[8*l:8*l+2]...), out[8*l+4:8*l+8]...)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("lane %d: got %v, want %v (any32, all32, p32, any64, all64, p64)", l, got, want)
				}
			}
		})
	}
}

// TestElectSync: the lowest lane of the member mask among those executing
// is elected; every lane learns its number (§9.7.13.14).
func TestElectSync(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<6>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 5;
	@%p1 bra DONE;
	elect.sync %r2|%p2, 0xfffffff0;
	selp.u32 %r3, 1, 0, %p2;
	mul.wide.u32 %rd2, %r1, 8;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v2.u32 [%rd3], {%r2, %r3};
DONE:
	ret;
}
`
	res := launch(t, src, Config{Block: dims(32, 1, 1)}, buf(8*32))
	out := u32s(res.Buffers[0].Data)
	for l := 5; l < 32; l++ {
		// Lanes 0-4 skip it; of the members (4-31) lane 5 is the first that executes.
		if out[2*l] != 5 || out[2*l+1] != uint32(b2i(l == 5)) {
			t.Fatalf("lane %d: leader %d elected %d; want 5, %v", l, out[2*l], out[2*l+1], l == 5)
		}
	}
}

// TestNanosleepPollLoop: a warp that polls a shared flag with nanosleep
// between polls lets the warp that sets it run; the clock moves forward.
func TestNanosleepPollLoop(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<6>;
	.reg .b32 %r<8>;
	.reg .pred %p<3>;
	.shared .u32 flag;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u64 %rd2, %clock64;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra SETTER;
POLL:
	ld.volatile.shared.u32 %r2, [flag];
	setp.ne.u32 %p2, %r2, 0;
	@%p2 bra DONE;
	nanosleep.u32 100;
	bra.uni POLL;
SETTER:
	st.volatile.shared.u32 [flag], 7;
	bra.uni END;
DONE:
	mov.u64 %rd3, %clock64;
	sub.u64 %rd4, %rd3, %rd2;
	mov.u32 %r3, %clock;
	mov.u32 %r4, %globaltimer_lo;
	st.global.u32 [%rd1], %r2;
	st.global.u64 [%rd1+8], %rd4;
	griddepcontrol.launch_dependents;
	griddepcontrol.wait;
END:
	ret;
}
`
	for _, seed := range []uint64{0, 5} {
		res := launch(t, src, Config{Block: dims(64, 1, 1), Seed: seed}, buf(16))
		d := res.Buffers[0].Data
		if v := binary.LittleEndian.Uint32(d); v != 7 {
			t.Fatalf("seed %d: the poller saw %d, want 7", seed, v)
		}
		if dt := binary.LittleEndian.Uint64(d[8:]); dt == 0 || dt > 1<<20 {
			t.Fatalf("seed %d: %%clock64 advanced by %d", seed, dt)
		}
	}
}

// TestPollingLoadYields: a spin loop on ld.acquire (no nanosleep) waiting
// for another warp of the CTA takes a few quanta, not the step budget.
func TestPollingLoadYields(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<8>;
	.reg .pred %p<3>;
	.shared .u32 flag;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r5, flag;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra SETTER;
SPIN:
	ld.acquire.cta.shared.u32 %r2, [%r5];
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra SPIN;
	st.global.u32 [%rd1], %r2;
	bra.uni END;
SETTER:
	setp.ne.u32 %p1, %r1, 32;
	@%p1 bra END;
	st.release.cta.shared.u32 [%r5], 3;
END:
	ret;
}
`
	res := launch(t, src, Config{Block: dims(64, 1, 1), MaxSteps: 10000}, buf(4))
	if v := binary.LittleEndian.Uint32(res.Buffers[0].Data); v != 3 {
		t.Fatalf("read %d, want 3", v)
	}
	if res.Stats.WarpInsts > 1000 {
		t.Fatalf("%d warp-instructions: the poll spun instead of yielding", res.Stats.WarpInsts)
	}
}
