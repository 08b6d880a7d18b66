// Package emu emulates PTX kernels: it lowers a checked function once into
// a compact program and runs grids of clusters of CTAs of warps on a
// warp-level SIMT interpreter, with byte-exact memory and a sanitizer that
// stops the run at the first undefined behaviour.
//
// # Entry points
//
// Decode lowers a checked kernel into a Program (DecodeResolved with the
// module's resolve.Info when the caller has it). A Launch is one launch of
// it: the kernel, its Config (grid, block and cluster shapes, dynamic
// shared memory, seed, jobs, asynchronous-completion policy, step and time
// budgets, Monitor, cooperative), its Args and the observers of the run
// (Trace for AsyncEvent values, TMEMOf for a CTA's Tensor Memory, Probe for
// the last store to a byte). Launch.Check validates all of it once, before
// anything is allocated, with errors that wrap ErrLaunch; Launch.Run checks
// and runs it and returns a Result: the Stats, the buffers, and the first
// sanitizer Report (nil for a clean run).
//
//	l := emu.Launch{Kernel: prog, Config: emu.Config{Block: [3]int{128, 1, 1}},
//		Args: []emu.Arg{{IsBuffer: true, Size: 512}}}
//	res, err := l.Run()
//
// Observers belong to their launch: launches of one Program may run at
// once, each with its own.
//
// # Pipeline
//
// Decode (decode.go, lower.go) turns the kernel and every .func it calls
// into Program.Insts, a flat []Inst. Each Inst holds its handler (an
// ExecFunc chosen at decode time for the exact type and shape), slot
// indices of its operands, immediates, the resolved branch target and its
// source position. Immediates, special registers (%tid, %cluster_ctarank,
// ...) and symbol addresses become register slots too, filled when a warp
// starts, so a handler reads every operand as w.R[slot+lane].
//
// Launch.Run (launch.go, machine.go) executes a launch: clusters are
// independent and run on Config.Jobs goroutines; inside a cluster one goroutine schedules the
// warps of all its CTAs, round-robin (Seed 0) or in a seeded random order
// with random quanta (Seed != 0), so that races show. Warp.run is the one
// dispatch loop: guard mask, handler call, step counting, reconvergence.
// Divergence uses per-thread program counters with min-PC scheduling
// (warp.go): the runnable lanes with the smallest pc form the active group;
// lanes waiting further ahead rejoin it when it gets there.
//
// # Memory (memory.go, access.go)
//
// Global memory is a sorted set of allocations (kernel buffers and module
// .global variables, separated by unmapped gaps); the kernel parameter
// buffer is a read-only allocation inside the global window. Shared memory
// belongs to each CTA; a shared address carries the owner's cluster rank
// (rank+1 in bits 31:24) so .shared::cluster addresses reach other CTAs.
// Local memory and .param::func arguments live in a per-thread frame. The
// generic space is split into windows by bits 47:40 (see the constants in
// memory.go). Warp.Bytes checks alignment, bounds and the window, and is
// what every handler, including extensions, uses to reach memory.
//
// # Extension points
//
// Instruction families implemented outside the core (mbarrier, st.async,
// cp.async, tcgen05; files of this package) plug in without editing the
// dispatch. These names (Warp, CTA, Cluster, Inst, Decoder, ...) are
// exported for that purpose, not for users of a launch:
//
//   - RegisterOpcode(op, fn) installs the decoder of an opcode;
//     RegisterVariant(op, qual, fn) overrides it for instructions carrying
//     a qualifier (st.async is RegisterVariant("st", isa.QAsync, ...)). The
//     DecodeFunc resolves operands with Decoder.Src, Dst, Addr, Vector,
//     Label, Const and NewSlot, may append helper steps with Emit, sets
//     Inst.Exec, and keeps private data in Inst.Ext.
//   - An ExecFunc returns Continue, Yield (completed; the warp gives the
//     rest of its quantum to the others), Retry (the warp waits; the scheduler
//     retries it later and reports a deadlock, using Warp.WaitWhat, when no
//     warp can move and nothing is pending) or Fault (after Warp.Fault or
//     Cluster.Fail recorded a Report). Lanes can be parked and released
//     with Warp.MoveLanes, Block and Unblock.
//   - NewCTAKey / NewClusterKey register per-CTA and per-cluster state
//     (tensor memory, mbarrier tables, async-group FIFOs) reached with
//     CTA.Ext and Cluster.Ext; OnCTAExit registers checks that run when a
//     CTA's last thread exits; CTA.Watch observes plain shared-memory
//     accesses (to flag stores onto a live mbarrier object).
//   - Cluster.Issue queues an AsyncOp: its Land function performs the
//     memory effects and completion (complete-tx, group completion) at a
//     point chosen by Config.Async: AsyncEager (at issue), AsyncDelayed (as
//     late as possible: when every warp waits, or at cluster end) or
//     AsyncRandom (a seeded random delay). LandWhere forces completion for
//     waits that must not depend on the policy.
//   - Report is the one sanitizer report type: a Rule id, a message, the
//     instruction's position and opcode, the thread's coordinates, the spec
//     section and, for deadlocks, where each warp waits.
//
// # Determinism
//
// The same program, arguments, Seed and Async policy give byte-identical
// buffers and reports. With Jobs > 1 clusters run concurrently; results
// stay identical for kernels whose clusters do not race on global memory
// (global atomics are serialised), and when several clusters fault the
// report of the lowest-numbered one is returned.
package emu
