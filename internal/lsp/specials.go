package lsp

import "strings"

// specialMeaning says what each special register holds (PTX ISA §10
// "Special Registers"); resolve.LookupSpecial gives its type and the
// version and target that introduced it.
var specialMeaning = map[string]string{
	"%tid":                 "thread identifier within the CTA (x, y, z), from 0 to %ntid-1 in each dimension",
	"%ntid":                "number of threads in the CTA in each dimension (the CTA shape)",
	"%laneid":              "lane of the thread within its warp, 0 to WARP_SZ-1",
	"%warpid":              "warp identifier within the CTA; it may change while the thread runs (after preemption), so use it only for profiling",
	"%nwarpid":             "maximum number of warp identifiers",
	"%ctaid":               "CTA identifier within the grid (x, y, z), from 0 to %nctaid-1 in each dimension",
	"%nctaid":              "number of CTAs in the grid in each dimension",
	"%smid":                "identifier of the multiprocessor running the thread; it may change while the thread runs",
	"%nsmid":               "maximum number of multiprocessor identifiers (identifiers need not be contiguous)",
	"%gridid":              "temporal grid launch number, unique per launch of the program",
	"%is_explicit_cluster": "true when the launch gave an explicit cluster shape, false when the cluster is the implicit 1x1x1",
	"%clusterid":           "cluster identifier within the grid (x, y, z)",
	"%nclusterid":          "number of clusters in the grid in each dimension",
	"%cluster_ctaid":       "CTA identifier within its cluster (x, y, z)",
	"%cluster_nctaid":      "number of CTAs in the cluster in each dimension",
	"%cluster_ctarank":     "rank of the CTA within its cluster, from 0 to %cluster_nctarank-1 (the rank mapa and .shared::cluster addresses use)",
	"%cluster_nctarank":    "number of CTAs in the cluster",
	"%lanemask_eq":         "32-bit mask with only the bit of the thread's lane set",
	"%lanemask_le":         "32-bit mask with the bits of lanes less than or equal to the thread's lane set",
	"%lanemask_lt":         "32-bit mask with the bits of lanes less than the thread's lane set",
	"%lanemask_ge":         "32-bit mask with the bits of lanes greater than or equal to the thread's lane set",
	"%lanemask_gt":         "32-bit mask with the bits of lanes greater than the thread's lane set",
	"%clock":               "32-bit cycle counter of the multiprocessor (wraps silently)",
	"%clock_hi":            "upper 32 bits of %clock64",
	"%clock64":             "64-bit cycle counter of the multiprocessor",
	"%globaltimer":         "64-bit global timer in nanoseconds",
	"%globaltimer_lo":      "lower 32 bits of %globaltimer",
	"%globaltimer_hi":      "upper 32 bits of %globaltimer",
	"%total_smem_size":     "shared memory of the CTA in bytes: static and dynamic, without the reserved part",
	"%aggr_smem_size":      "shared memory of the CTA in bytes including the reserved part",
	"%dynamic_smem_size":   "dynamic shared memory of the CTA in bytes, as given at launch",
	"%current_graph_exec":  "handle of the CUDA graph executable running the kernel, or 0",
}

// specialMeaningOf returns the meaning of a special register, covering
// the numbered families (%pm0..%pm7, %pm0_64.., %envreg0..31,
// %reserved_smem_offset_*).
func specialMeaningOf(name string) string {
	if m, ok := specialMeaning[name]; ok {
		return m
	}
	switch {
	case strings.HasPrefix(name, "%pm") && strings.HasSuffix(name, "_64"):
		return "64-bit performance monitoring counter"
	case strings.HasPrefix(name, "%pm"):
		return "32-bit performance monitoring counter"
	case strings.HasPrefix(name, "%envreg"):
		return "driver-defined read-only register describing the launch environment"
	case strings.HasPrefix(name, "%reserved_smem_offset"):
		return "offset of the shared memory the system reserves in the CTA's window"
	}
	return ""
}
