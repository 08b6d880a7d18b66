#!/usr/bin/env bash
# mem-check.sh [MiB] - peak RSS of `ptxkit check` and `ptxkit fmt` on one
# PTX file holding a single function of the given size (default 256 MiB,
# the largest input they accept), and of `ptxkit run --arg file:/dev/zero`.
#
# The file is generated in a temporary folder and removed afterwards: one
# .entry whose body is the line "add.u32 %r1, %r2, %r3; // a comment"
# repeated. Peak RSS is GNU time's "Maximum resident set size".
set -euo pipefail

mib=${1:-256}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -o "$work/ptxkit" ./cmd/ptxkit

big="$work/big.ptx"
{
	printf '.version 8.5\n.target sm_90\n.address_size 64\n.visible .entry big(.param .u64 p)\n{\n'
	printf '\t.reg .b32 %%r<8>;\n\t.reg .b64 %%rd<4>;\n\tld.param.u64 %%rd1, [p];\n'
	awk -v n=$(( (mib * 1048576 - 200) / 37 )) 'BEGIN { for (i = 0; i < n; i++) print "\tadd.u32 %r1, %r2, %r3; // a comment" }'
	printf '\tst.global.u32 [%%rd1], %%r1;\n\tret;\n}\n'
} >"$big"
size=$(stat -c %s "$big")
echo "input: $size bytes, one function"

# peak CMD...: prints the command's peak RSS in MB and its wall and user time.
peak() {
	/usr/bin/time -f '%M %e %U' -o "$work/time" "$@" >/dev/null 2>&1 || true
	read -r kb wall user < <(tail -n 1 "$work/time")
	local cmd="ptxkit ${*:2}"
	printf '%-40s peak RSS %6d MB (%.1fx the input), %5.1f s wall, %5.1f s user\n' "${cmd//$work\//}" $((kb / 1024)) \
		"$(echo "$kb * 1024 / $size" | bc -l)" "$wall" "$user"
}
peak "$work/ptxkit" check "$big"
peak "$work/ptxkit" fmt "$big"
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n\tret;\n}\n' >"$work/k.ptx"
peak "$work/ptxkit" run "$work/k.ptx" --arg file:/dev/zero
