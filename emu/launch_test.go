package emu

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

// TestLaunchCheck checks that Launch.Check refuses arguments and
// observers that do not fit the kernel, before allocating anything.
func TestLaunchCheck(t *testing.T) {
	p := compile(t, ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out, .param .u32 n)\n{\n\tret;\n}\n")
	cases := []struct {
		l    Launch
		want string
	}{
		{Launch{Args: []Arg{{IsBuffer: true, Size: 4}}}, "kernel k takes 2 parameters (out .u64, n .u32); 1 argument given"},
		{Launch{Args: []Arg{{}, {IsBuffer: true, Size: 4}}}, "parameter 1 (n) is 4 bytes wide and cannot hold a buffer address"},
		{Launch{Args: []Arg{{IsBuffer: true, Size: MaxBufferBytes + 1}, {}}}, "argument 0 (out): buffer of 1073741825 bytes: at most 1073741824 bytes (1024 MiB) of buffers per launch"},
		{Launch{Args: []Arg{{IsBuffer: true, Size: 4}, {Raw: make([]byte, 5)}}}, "5 bytes given for parameter 1 (n) of 4 bytes"},
		{Launch{Args: []Arg{{IsBuffer: true, Size: 4}, {}}, TMEMOf: &[3]int{0, 1, 0}}, "CTA (0,1,0) is outside the grid (1,1,1)"},
		{Launch{Args: []Arg{{IsBuffer: true, Size: 4}, {}}, Probe: &StoreProbe{Arg: 1}}, "the store probe watches argument 1, which is not a buffer"},
		{Launch{Config: Config{Grid: dims(3, 1, 1), Cluster: dims(2, 1, 1)}, Args: []Arg{{IsBuffer: true, Size: 4}, {}}}, "grid x dimension (3) is not a multiple"},
	}
	for _, c := range cases {
		c.l.Kernel = p
		if _, err := c.l.Run(); !errors.Is(err, ErrLaunch) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
	l := Launch{Kernel: p, Args: []Arg{{IsBuffer: true, Size: 8, Fill: 0xab}, {Value: 3}}}
	res, err := l.Run()
	if err != nil || string(res.Buffers[0].Data) != strings.Repeat("\xab", 8) {
		t.Fatalf("filled buffer: %v, %x", err, res.Buffers[0].Data)
	}
}

// TestLaunchObserversPerLaunch checks that a launch's observers see only
// that launch: launches of one program running at once, one traced and
// one not, give the traced one the events a lone traced run gets.
func TestLaunchObserversPerLaunch(t *testing.T) {
	p := compile(t, readAsyncKernel(t, "cluster_exchange.ptx"))
	cfg := Config{Grid: dims(2, 1, 1), Block: dims(32, 1, 1), Cluster: dims(2, 1, 1), Async: AsyncDelayed}
	traced := func() (func(AsyncEvent), *[]AsyncEvent) {
		var events []AsyncEvent
		return func(e AsyncEvent) { events = append(events, e) }, &events
	}
	fn, alone := traced()
	l := Launch{Kernel: p, Config: cfg, Args: []Arg{buf(256)}, Trace: fn}
	if res, err := l.Run(); err != nil || res.Report != nil || len(*alone) == 0 {
		t.Fatalf("lone traced run: %v, %v, %d events", err, res.Report, len(*alone))
	}
	var wg sync.WaitGroup
	got := make([]*[]AsyncEvent, 4)
	for i := range got {
		l := Launch{Kernel: p, Config: cfg, Args: []Arg{buf(256)}}
		if i%2 == 0 {
			l.Trace, got[i] = traced()
		}
		wg.Go(func() {
			if res, err := l.Run(); err != nil || res.Report != nil {
				t.Errorf("launch %d: %v, %v", i, err, res.Report)
			}
		})
	}
	wg.Wait()
	for i, ev := range got {
		if ev != nil && !equalEvents(*ev, *alone) {
			t.Errorf("launch %d: %d events, want the lone run's %d", i, len(*ev), len(*alone))
		}
	}
}

func equalEvents(a, b []AsyncEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLaunchStoreProbe checks that Launch.Probe counts the stores to one
// byte and names a thread that made them: 64 threads store to out[tid%4],
// so 16 stores reach each of the first 16 bytes and none the rest.
func TestLaunchStoreProbe(t *testing.T) {
	p := compile(t, `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 3;
	mul.wide.u32 %rd2, %r2, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}
`)
	for _, c := range []struct {
		off    uint64
		stores uint64
	}{{5, 16}, {12, 16}, {16, 0}} {
		probe := &StoreProbe{Arg: 0, Offset: c.off}
		l := Launch{Kernel: p, Config: Config{Block: dims(64, 1, 1), Jobs: 4}, Args: []Arg{{IsBuffer: true, Size: 32}}, Probe: probe}
		if _, err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if l.Jobs != 1 {
			t.Errorf("a probed launch ran with %d jobs", l.Jobs)
		}
		if probe.Stores != c.stores || probe.Found != (c.stores > 0) {
			t.Errorf("byte %d: found %v after %d stores, want %d", c.off, probe.Found, probe.Stores, c.stores)
		}
		if tid := probe.Thread.Warp*32 + probe.Thread.Lane; probe.Found && (tid%4 != int(c.off/4) || probe.Opcode != "st.global.u32" || probe.Pos.Line != 13) {
			t.Errorf("byte %d: stored by thread %d with %s at line %d", c.off, tid, probe.Opcode, probe.Pos.Line)
		}
	}
}
