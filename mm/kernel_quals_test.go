package mm

import (
	"fmt"
	"strings"
	"testing"
)

// TestPTXKernelQualifiers checks how the kernel reader maps the ordering,
// scope, comparison, fence and barrier qualifiers of a kernel to the
// model: .volatile is .relaxed.sys (§8.4.2), atom and red default to
// .relaxed.gpu, membar.gl is fence.sc.gpu and a fence without .sem is
// .acq_rel (§9.7.13.4), setp.lo is an unsigned less-than (§9.7.6.1).
func TestPTXKernelQualifiers(t *testing.T) {
	const src = `//@ exists (x == 1)
.version 8.0
.target sm_90
.address_size 64
.global .u32 x;
.shared .b64 bar1;
.shared .u32 y;
.visible .entry k()
{
	.reg .u32 %r<4>;
	.reg .pred %p;
	ld.volatile.global.u32 %r1, [x];
	st.release.cta.global.u32 [x], 1;
	atom.global.add.u32 %r2, [x], 1;
	red.acq_rel.sys.global.max.u32 [x], 2;
	setp.lo.u32 %p, %r1, %r2;
	membar.gl;
	fence.cluster;
	fence.sc.cta;
	fence.acq_rel.sys;
	fence.proxy.alias;
	fence.proxy.async;
	bar.sync 0;
	barrier.cta.arrive.aligned 1, 32;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [y], [x], 16, [bar1];
	ret;
}
`
	prog, err := ParsePTXKernel("k.ptx", []byte(src), []ThreadSpec{{Cluster: -1}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range prog.Threads[0].Code {
		if in.Op == OpLabel {
			continue
		}
		got = append(got, fmt.Sprintf("%v %v %v %v %v %s %v", in.Op, in.Sem, in.Scope, in.Fence, in.Proxy, in.RMW, in.Arrive))
	}
	want := []string{
		fmt.Sprintf("%v %v %v %v %v %s %v", OpLoad, Relaxed, ScopeSys, FenceKind(0), Proxy(0), "", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpStore, Release, ScopeCTA, FenceKind(0), Proxy(0), "", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpRMW, Relaxed, ScopeGPU, FenceKind(0), Proxy(0), "add", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpRMW, AcqRel, ScopeSys, FenceKind(0), Proxy(0), "max", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpArith, Sem(0), NoScope, FenceKind(0), Proxy(0), "setlt", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpFence, SC, ScopeGPU, FenceSC, Proxy(0), "", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpFence, AcqRel, ScopeCluster, FenceAcqRel, Proxy(0), "", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpFence, SC, ScopeCTA, FenceSC, Proxy(0), "", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpFence, AcqRel, ScopeSys, FenceAcqRel, Proxy(0), "", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpFence, Sem(0), NoScope, FenceAlias, Proxy(0), "", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpFence, Sem(0), NoScope, FenceProxy, Async, "", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpBar, Sem(0), ScopeCTA, FenceKind(0), Proxy(0), "", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpBar, Sem(0), ScopeCTA, FenceKind(0), Proxy(0), "", true),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpBulkCopy, Sem(0), NoScope, FenceKind(0), Async, "", false),
		fmt.Sprintf("%v %v %v %v %v %s %v", OpGoto, Sem(0), NoScope, FenceKind(0), Proxy(0), "", false), // ret
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("got\n%s\nwant\n%s", g, w)
	}
}
