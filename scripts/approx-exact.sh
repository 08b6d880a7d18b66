#!/usr/bin/env bash
# approx-exact.sh [PTXKIT] - share of the H100's recorded results of the
# approximate float instructions that `ptxkit run` reproduces bit for bit.
#
# For each ../shared/gpu-reference/approx/NAME.bin (records (x, result) or
# (x, y, result)) it runs the matching kernel of apply.ptx over the file and
# compares every result word. PTXKIT defaults to a fresh build of
# ./cmd/ptxkit.
set -euo pipefail

cd "$(dirname "$0")/.."
dir=../shared/gpu-reference/approx
[ -d "$dir" ] || { echo "approx-exact.sh: $dir is absent" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ptxkit=${1:-}
if [ -z "$ptxkit" ]; then
	go build -o "$tmp/ptxkit" ./cmd/ptxkit
	ptxkit=$tmp/ptxkit
fi
for f in "$dir"/*.bin; do
	name=$(basename "$f" .bin)
	words=2
	case $name in div.*) words=3 ;; esac
	n=$(($(stat -c %s "$f") / 4 / words))
	"$ptxkit" run "$dir/apply.ptx" --kernel "apply_${name//./_}" --grid $((n / 256)) --block 256 \
		--arg "file:$f" --arg "$n" --out "$tmp/$name" --dump none >/dev/null
	out=$(ls "$tmp/$name"/* | head -1)
	python3 - "$f" "$out" "$words" "$name" <<'PY'
import sys
want, got, w, name = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read(), int(sys.argv[3]), sys.argv[4]
n = len(want) // 4 // w
same = sum(want[(i*w+w-1)*4:(i*w+w)*4] == got[(i*w+w-1)*4:(i*w+w)*4] for i in range(n))
print("%-20s %8.4f%%  (%d of %d)" % (name, 100 * same / n, same, n))
PY
done
