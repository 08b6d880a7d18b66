#!/bin/sh
# pgo.sh - regenerate cmd/ptxkit/default.pgo, the CPU profile that `go build`,
# `go install` and `go run` use for profile-guided optimization of the ptxkit
# command (Go 1.21+ reads default.pgo from the main package's folder).
#
# The profile merges the two workloads whose speed is measured in
# BENCHMARKS.md: `ptxkit check` on the many-kernel benchmark module
# (BenchmarkCheckFile) and `ptxkit run` on the store-heavy emulator kernel
# (BenchmarkStoreKernel). Rerun it after changing hot code; BENCHMARKS.md
# says which figures were taken with the profile.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test ./cmd/ptxkit -run '^$' -bench '^BenchmarkCheckFile$' -benchtime 60x -count 1 -cpuprofile "$tmp/check.prof" >/dev/null
go test ./emu -run '^$' -bench '^BenchmarkStoreKernel$' -benchtime 20x -count 1 -cpuprofile "$tmp/emu.prof" >/dev/null
go tool pprof -proto "$tmp/check.prof" "$tmp/emu.prof" > cmd/ptxkit/default.pgo 2>/dev/null
echo "wrote cmd/ptxkit/default.pgo ($(wc -c < cmd/ptxkit/default.pgo) bytes)"
