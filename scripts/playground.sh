#!/bin/sh
# playground.sh [DIR]: builds the ptxkit playground, a static folder (no
# server needed beyond one that serves files): index.html, playground.js,
# Go's wasm_exec.js, ptxkit.wasm (cmd/ptxkit built for GOOS=js
# GOARCH=wasm) and example kernels from testdata (examples.json). Serve DIR with any static file server and open index.html.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-"$root/build/playground"}
mkdir -p "$out"
goroot=$(go env GOROOT)
execjs="$goroot/lib/wasm/wasm_exec.js"            # Go 1.24 and later
[ -f "$execjs" ] || execjs="$goroot/misc/wasm/wasm_exec.js"
cd "$root"
GOOS=js GOARCH=wasm go build -ldflags=-s -o "$out/ptxkit.wasm" ./cmd/ptxkit
cp "$execjs" "$out/wasm_exec.js"
cp web/index.html web/playground.js web/examples.json "$out/"
# the kernels examples.json names, from testdata
mkdir -p "$out/examples"
for k in async/cluster_exchange async/bulk_copy async/cp_async_pipeline tmem/lifecycle; do
	cp "testdata/emu/$k.ptx" "$out/examples/$(basename "$k").ptx"
done
echo "$out"
