package emu

import (
	"fmt"
	"time"
)

// Cooperative launches (CUDA's cudaLaunchCooperativeKernel): every CTA of
// the grid is resident at once, so CTAs may wait for each other. The CUDA
// runtime's cooperative_groups::grid_group::sync reads the address of a
// grid workspace from %envreg1 (high half) and %envreg2 (low half), traps
// when it is null, and uses the 32-bit word at offset 4 as its barrier:
// one thread per CTA adds 1 to it (the CTA (0,0,0) adds 0x80000001 minus
// the number of CTAs, so that bit 31 flips once all have arrived) with
// atom.add.release.gpu and spins on ld.acquire.gpu until the bit flips.
//
// The emulator allocates the workspace (zeroed, gridWorkspaceBytes) in
// global memory and runs every cluster of the grid on one goroutine,
// giving each cluster a scheduling round (Cluster.round) in turn, in
// cluster order. The interleaving is therefore fixed by the program,
// the arguments and Config.Seed alone, and spinning CTAs let the others
// reach the barrier within one round each.

// gridWorkspaceBytes is the size of the grid workspace.
const gridWorkspaceBytes = 16

// H100 residency limits that bound a cooperative grid.
const (
	maxCTAsPerSM    = 32
	maxThreadsPerSM = 2048
	smemPerSM       = 228 << 10
)

// coopMaxCTAs is the largest grid a cooperative launch of p with cfg's
// block and shared memory can have on an H100: what fits on every SM at
// once, counting threads (in whole warps), CTA slots and shared memory
// (with the 1 KiB each CTA reserves). Registers are not counted: the
// emulator does not know ptxas's allocation.
func coopMaxCTAs(p *Program, cfg *Config) int {
	nt := cfg.Block[0] * cfg.Block[1] * cfg.Block[2]
	perSM := min(maxCTAsPerSM, maxThreadsPerSM/((nt+31)/32*32))
	if smem := userSmemBytes(p, cfg) + reservedSmemBytes; smem > 0 {
		perSM = min(perSM, smemPerSM/smem)
	}
	return perSM * numSMs
}

// runCooperative runs a cooperative launch: all clusters at once.
func runCooperative(p *Program, mem *Memory, cfg *Config) (Stats, *Report, error) {
	start := time.Now()
	cdim := [3]int{cfg.Grid[0] / cfg.Cluster[0], cfg.Grid[1] / cfg.Cluster[1], cfg.Grid[2] / cfg.Cluster[2]}
	nclusters := cdim[0] * cdim[1] * cdim[2]
	nctas := nclusters * cfg.Cluster[0] * cfg.Cluster[1] * cfg.Cluster[2]
	if most := coopMaxCTAs(p, cfg); nctas > most {
		return Stats{}, nil, fmt.Errorf("%w: a cooperative launch of %d CTAs; at most %d of these CTAs are resident at once on an H100 (%d SMs)", ErrLaunch, nctas, most, numSMs)
	}
	if need := uint64(nclusters) * clusterBytes(p, cfg); need > maxLaunchBytes {
		return Stats{}, nil, fmt.Errorf("%w: a cooperative launch holds every CTA at once: %d MiB of emulator state, at most %d MiB", ErrLaunch, need>>20, maxLaunchBytes>>20)
	}
	cfg.gridWorkspace = mem.allocGlobal("grid workspace", gridWorkspaceBytes, 256).Base
	mon, disarm := startTimeout(cfg)
	defer disarm()
	workers := make([]*worker, nclusters)
	for i := range workers {
		workers[i] = newWorker(p, cfg, mem, nil)
		workers[i].mon = mon
		workers[i].startCluster(i, [3]int{i % cdim[0], i / cdim[0] % cdim[1], i / (cdim[0] * cdim[1])})
	}
	rep := coopSchedule(workers, cfg)
	if cfg.KeepGoing {
		kept := map[int]*keptSet{}
		for i, wk := range workers {
			kept[i] = wk.cl.kept
		}
		cfg.obs.kept = mergeKept(kept, nclusters, cfg.MaxReports, rep)
	}
	var total Stats
	printed := newPrintLog()
	for i, wk := range workers {
		wk.cl.retire()
		wk.stats.ClusterSteps = wk.cl.steps
		total.add(&wk.stats)
		if len(wk.cl.printf) > 0 {
			printed.add(i, wk.cl.printf)
		}
	}
	total.Wall = time.Since(start)
	total.Printf = printed.output(nclusters)
	return total, rep, nil
}

// coopSchedule gives every unfinished cluster one round at a time until
// all finish, one reports, the launch's step budget is spent, or nothing
// can move.
func coopSchedule(workers []*worker, cfg *Config) *Report {
	live := append([]*worker(nil), workers...)
	var spent uint64
	for len(live) > 0 {
		progressed := false
		next := live[:0]
		for _, wk := range live {
			before := wk.cl.steps
			done, moved, r := wk.cl.round()
			spent += wk.cl.steps - before
			if r != nil {
				return r
			}
			progressed = progressed || moved
			if !done {
				next = append(next, wk)
			}
		}
		live = next
		if spent >= cfg.MaxLaunchSteps && len(live) > 0 {
			return &Report{Rule: RuleMaxSteps, File: live[0].prog.File,
				Message: fmt.Sprintf("the cooperative launch exceeded %d warp-instructions over all its CTAs (--max-launch-steps)", cfg.MaxLaunchSteps)}
		}
		if progressed || len(live) == 0 {
			continue
		}
		landed := false
		for _, wk := range live {
			if len(wk.cl.async) > 0 {
				if r := wk.cl.landOne(); r != nil {
					return r
				}
				landed = true
				break
			}
		}
		if !landed {
			return live[0].cl.deadlock(live[0].cl.runq)
		}
	}
	return nil
}
