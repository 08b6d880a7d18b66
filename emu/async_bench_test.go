package emu

import (
	"testing"

	"github.com/ptxkit/ptxkit/internal/benchmod"
)

// streamWant returns out[(2*cluster+rank)*32+tid] of stream.ptx after n
// rounds (the same in every cluster).
func streamWant(rank, tid, n int) uint32 {
	peer := rank ^ 1
	return uint32(n*(7*peer+tid) + n*(n-1)/2)
}

func checkStream(t testing.TB, res *Result, clusters, n int) {
	t.Helper()
	if res.Report != nil {
		t.Fatal(res.Report)
	}
	got := u32s(res.Buffers[0].Data)
	for c := 0; c < clusters; c++ {
		for rank := 0; rank < 2; rank++ {
			for tid := 0; tid < 32; tid++ {
				if i, w := (2*c+rank)*32+tid, streamWant(rank, tid, n); got[i] != w {
					t.Fatalf("out[%d] = %d, want %d", i, got[i], w)
				}
			}
		}
	}
}

func TestStream(t *testing.T) {
	src := readAsyncKernel(t, "stream.ptx")
	for _, n := range []uint64{0, 1, 2, 5} {
		forEachSchedule(t, func(t *testing.T, cfg Config) {
			cfg.Grid, cfg.Block, cfg.Cluster = dims(2, 1, 1), dims(32, 1, 1), dims(2, 1, 1)
			res := launchReport(t, src, cfg, buf(256), scalar(n))
			if res.Report != nil {
				t.Fatalf("n %d %v seed %d: %v", n, cfg.Async, cfg.Seed, res.Report)
			}
			checkStream(t, res, 1, int(n))
		})
	}
}

// BenchmarkStAsyncStream measures st.async messages per second: one
// cluster of 2 CTAs x 32 threads streams 1024 rounds, each thread sending
// one 4-byte message per round (65,536 messages per launch). msgs/cpu-s
// counts CPU time (the garbage collector's included), which depends less
// on what else the machine runs than msgs/s.
func BenchmarkStAsyncStream(b *testing.B) {
	const rounds = 1024
	for _, pol := range asyncPolicies {
		b.Run(pol.String(), func(b *testing.B) {
			p := compile(b, readAsyncKernel(b, "stream.ptx"))
			cfg := Config{Grid: dims(2, 1, 1), Block: dims(32, 1, 1), Cluster: dims(2, 1, 1), Async: pol, Seed: 1}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := benchmod.CPUTime()
			for i := 0; i < b.N; i++ {
				res, err := execute(p, cfg, []Arg{buf(256), scalar(rounds)})
				if err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					checkStream(b, res, 1, rounds)
				}
			}
			msgs := float64(b.N) * rounds * 64
			b.ReportMetric(msgs/b.Elapsed().Seconds(), "msgs/s")
			if d := benchmod.CPUTime() - cpu; cpu != 0 && d > 0 {
				b.ReportMetric(msgs/d.Seconds(), "msgs/cpu-s")
			}
		})
	}
}

// TestStreamParallelClusters runs many clusters in parallel (Jobs > 1):
// each cluster's asynchronous state is its own, so results match the
// sequential run.
func TestStreamParallelClusters(t *testing.T) {
	src := readAsyncKernel(t, "stream.ptx")
	for _, pol := range asyncPolicies {
		cfg := Config{Grid: dims(16, 1, 1), Block: dims(32, 1, 1), Cluster: dims(2, 1, 1), Async: pol, Seed: 3, Jobs: 4}
		res := launchReport(t, src, cfg, buf(16*32*4), scalar(3))
		checkStream(t, res, 8, 3)
	}
}
