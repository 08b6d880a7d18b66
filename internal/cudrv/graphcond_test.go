package cudrv

import (
	"encoding/binary"
	"testing"
)

// countdownPTX decrements the counter at p and sets the condition of
// handle h to the counter's new value, as a while loop's body does.
const countdownPTX = `.version 8.5
.target sm_90
.address_size 64
.extern .func cudaGraphSetConditional (.param .b64 h, .param .b32 v);
.visible .entry countdown(.param .u64 p, .param .u64 h)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [h];
	ld.global.u32 %r1, [%rd1];
	sub.u32 %r1, %r1, 1;
	st.global.u32 [%rd1], %r1;
	{
	.param .b64 a; .param .b32 b;
	st.param.b64 [a], %rd2;
	st.param.b32 [b], %r1;
	call.uni cudaGraphSetConditional, (a, b);
	}
	ret;
}
`

// TestConditionalNodes runs while, if and switch nodes whose condition a
// kernel sets with cudaGraphSetConditional, and checks the default value
// a launch starts from.
func TestConditionalNodes(t *testing.T) {
	d, errs := newTestDriver(t)
	mod, r, detail := d.LoadModule([]byte(countdownPTX))
	if r != Success {
		t.Fatal(r, detail)
	}
	fn, _ := d.GetFunction(mod, "countdown")
	p, _ := d.MemAlloc(4)
	pb, _ := d.Device(p, 4)
	h, r := d.CreateConditional(1, true)
	if r != Success || !d.IsConditional(h) || d.IsConditional(p) {
		t.Fatal("CreateConditional", r)
	}
	runs := 0
	body := func(int) Result {
		runs++
		params := [][]byte{binary.LittleEndian.AppendUint64(nil, p), binary.LittleEndian.AppendUint64(nil, h)}
		return d.Launch(fn, LaunchConfig{Grid: [3]int{1, 1, 1}, Block: [3]int{1, 1, 1}}, params)
	}
	binary.LittleEndian.PutUint32(pb, 5)
	if r := d.RunConditional(h, CondWhile, 1, body); r != Success || runs != 5 || binary.LittleEndian.Uint32(pb) != 0 {
		t.Fatalf("while: %v, %d runs, counter %d\n%s", r, runs, binary.LittleEndian.Uint32(pb), errs)
	}
	// The loop left the condition 0: an if node does not run its body,
	// until a launch assigns the default (1) again.
	runs = 0
	binary.LittleEndian.PutUint32(pb, 3)
	if r := d.RunConditional(h, CondIf, 1, body); r != Success || runs != 0 {
		t.Fatalf("if with condition 0: %v, %d runs", r, runs)
	}
	d.ApplyConditionalDefaults([]uint64{h})
	if v, _ := d.Condition(h); v != 1 {
		t.Fatalf("after the defaults the condition is %d", v)
	}
	var ran []int
	record := func(i int) Result { ran = append(ran, i); return Success }
	if d.RunConditional(h, CondIf, 2, record); len(ran) != 1 || ran[0] != 0 {
		t.Errorf("if/else with condition 1 ran %v", ran)
	}
	// One run of the body takes the counter from 3 to 2 and sets the
	// condition to 2: a switch runs body 2 of 3 (none of 2), an if/else
	// with condition 0 runs its else body, and the while loop runs twice.
	if r := d.RunConditional(h, CondIf, 1, body); r != Success || runs != 1 || binary.LittleEndian.Uint32(pb) != 2 {
		t.Fatalf("if with condition 1: %v, %d runs, counter %d", r, runs, binary.LittleEndian.Uint32(pb))
	}
	ran = nil
	d.RunConditional(h, CondSwitch, 3, record)
	d.RunConditional(h, CondSwitch, 2, record)
	h0, _ := d.CreateConditional(0, false)
	d.RunConditional(h0, CondIf, 2, record)
	if len(ran) != 2 || ran[0] != 2 || ran[1] != 1 {
		t.Errorf("switch and else bodies ran %v, want [2 1]", ran)
	}
	if r := d.RunConditional(h, CondWhile, 1, body); r != Success || runs != 3 || binary.LittleEndian.Uint32(pb) != 0 {
		t.Errorf("while from condition 2: %v, %d runs in all, counter %d", r, runs, binary.LittleEndian.Uint32(pb))
	}
	if _, r := d.Condition(p); r != ErrInvalidValue {
		t.Errorf("an allocation read as a conditional handle: %v", r)
	}
}
