package emu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// TestEverySpecialRegisterReads reads every special register PTX defines
// (the resolver's table) in one kernel; none is refused.
func TestEverySpecialRegisterReads(t *testing.T) {
	var names []string
	for _, n := range []string{"%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid"} {
		for _, c := range []string{"x", "y", "z"} {
			names = append(names, n+"."+c)
		}
	}
	names = append(names, "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%cluster_ctarank", "%cluster_nctarank",
		"%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", "%total_smem_size",
		"%aggr_smem_size", "%dynamic_smem_size", "%current_graph_exec", "%reserved_smem_offset_begin", "%reserved_smem_offset_end",
		"%reserved_smem_offset_cap", "%reserved_smem_offset_0", "%reserved_smem_offset_1")
	for _, s := range []string{"eq", "le", "lt", "ge", "gt"} {
		names = append(names, "%lanemask_"+s)
	}
	for i := range 8 {
		names = append(names, fmt.Sprintf("%%pm%d", i), fmt.Sprintf("%%pm%d_64", i))
	}
	for i := range 32 {
		names = append(names, fmt.Sprintf("%%envreg%d", i))
	}
	names = append(names, "%is_explicit_cluster")
	var b strings.Builder
	b.WriteString(header + ".visible .entry k(.param .u64 out)\n{\n\t.reg .b64 %rd<4>;\n\t.reg .b32 %r<4>;\n\t.reg .pred %p<2>;\n")
	b.WriteString("\tld.param.u64 %rd1, [out];\n\tmov.u64 %rd3, 0;\n\tmov.u32 %r3, 0;\n")
	for _, n := range names {
		sp := resolve.LookupSpecial(strings.Split(n, ".")[0])
		if sp == nil {
			t.Fatalf("%s is not a special register", n)
		}
		switch sp.Type {
		case ".pred":
			fmt.Fprintf(&b, "\tmov.pred %%p1, %s;\n", n)
		case ".u64":
			fmt.Fprintf(&b, "\tmov.u64 %%rd2, %s;\n\tadd.u64 %%rd3, %%rd3, %%rd2;\n", n)
		default:
			fmt.Fprintf(&b, "\tmov.u32 %%r2, %s;\n\tadd.u32 %%r3, %%r3, %%r2;\n", n)
		}
	}
	b.WriteString("\tst.global.u64 [%rd1], %rd3;\n\tst.global.u32 [%rd1+8], %r3;\n\tret;\n}\n")
	launch(t, b.String(), Config{Block: dims(32, 1, 1)}, buf(16))
}
