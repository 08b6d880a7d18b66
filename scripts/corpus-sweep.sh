#!/usr/bin/env bash
# corpus-sweep.sh: compare `ptxkit check` with ptxas on every .ptx file under a directory and print one row
# per file and a summary table.
#
#   scripts/corpus-sweep.sh DIR [DIR...]
#
# For each file the module's own .version and .target decide the oracle: ptxas 12.5 for PTX ISA <= 8.5 with
# -arch set to the .target (targets below sm_50, which 12.5 does not generate code for, are assembled with
# -arch=sm_50: ptxas still checks the module against its own .target). When 12.5 rejects the file, ptxas 11.8
# (if present) is asked too and its verdict shown. A file that needs separate compilation (ptxas: "Unresolved
# extern function") is checked by both with -c. A file of PTX ISA 8.6 or later is given to ptxas 12.5 with
# its .version lowered to 8.5 (marked VERSION@8.5): when 12.5 accepts it that way it uses nothing newer and
# the verdict stands; otherwise, and for targets 12.5 does not know, only ptxkit's verdict is shown (NA).
#
# ptxas stops at a fatal error on a line; ptxkit's errors after that line are then left out of the comparison.
# Verdicts: AA (both accept), AR (both reject on the same lines), AR~ (both reject, other lines), FE (false
# error: ptxkit rejects, ptxas accepts), FA (false accept), NA (no oracle).
#
# Environment:
#   PTXKIT       the ptxkit binary (default: built from this tree into a temporary folder)
#   PTXAS125     ptxas 12.5 (default: $PTXKIT_CUDA_BIN/ptxas or ~/.cache/cuda-oracle/12.5/bin/ptxas)
#   PTXAS118     ptxas 11.8 (default: ~/.cache/cuda-oracle/11.8/bin/ptxas; optional)
#   SWEEP_DETAIL a file to append each disagreeing file's two outputs to (optional)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: corpus-sweep.sh DIR [DIR...]" >&2; exit 2; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}
ptxas125=${PTXAS125:-${PTXKIT_CUDA_BIN:-$cache/cuda-oracle/12.5/bin}/ptxas}
ptxas118=${PTXAS118:-$cache/cuda-oracle/11.8/bin/ptxas}
[[ -x $ptxas125 ]] || { echo "corpus-sweep.sh: no ptxas 12.5 at $ptxas125 (set PTXAS125)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ptxkit=${PTXKIT:-$tmp/ptxkit}
if [[ -z ${PTXKIT:-} ]]; then (cd "$here" && go build -o "$ptxkit" ./cmd/ptxkit) || exit 2; fi
detail=${SWEEP_DETAIL:-/dev/null}

# version_of FILE / target_of FILE: the module's .version and first sm_ target.
version_of() { grep -m1 -oE '^[[:space:]]*\.version[[:space:]]+[0-9]+\.[0-9]+' "$1" | grep -oE '[0-9]+\.[0-9]+'; }
target_of() { grep -m1 -E '^[[:space:]]*\.target' "$1" | grep -oE 'sm_[0-9]+[af]?' | head -1; }

# error_lines: the sorted distinct line numbers of ptxas (stdin) errors.
ptxas_error_lines() { grep -E 'line [0-9]+; error' | sed -E 's/.*line ([0-9]+); error.*/\1/' | sort -nu | tr '\n' ' '; }
ptxkit_error_lines() { grep -E '"severity":"error"' | sed -E 's/.*"line":([0-9]+),.*/\1/' | sort -nu | tr '\n' ' '; }

# arch125 TARGET: the -arch for ptxas 12.5, empty when it has none for TARGET.
arch125() {
	local n=${1#sm_}
	n=${n%[af]}
	if ((n < 50)); then echo sm_50; elif ((n <= 90)); then echo "$1"; fi
}

# newer VERSION: true when VERSION is above 8.5.
newer() { awk -v v="$1" 'BEGIN { split(v, a, "."); exit !(a[1] > 8 || (a[1] == 8 && a[2] > 5)) }'; }

declare -A count
printf '%-5s %-6s %-8s %-22s %-22s %s\n' VERD PTX TARGET PTXAS_LINES PTXKIT_LINES FILE
while IFS= read -r -d '' f; do
	v=$(version_of "$f")
	t=$(target_of "$f")
	arch=""
	[[ -n $t ]] && arch=$(arch125 "$t")
	c=""
	kout=$(timeout 120 "$ptxkit" check --format=json --max-diagnostics 0 "$f" 2>/dev/null)
	src=$f
	if [[ -n $v && -n $arch ]] && newer "$v"; then
		# ptxas 12.5 knows PTX ISA up to 8.5: ask it about the module at 8.5; if it accepts, the module
		# uses nothing newer and its verdict stands. A refusal there decides nothing (NA).
		src=$tmp/at85.ptx
		sed -E '0,/^[[:space:]]*\.version[[:space:]]+[0-9.]+/s//.version 8.5/' "$f" >"$src"
		if ! timeout 120 "$ptxas125" -arch="$arch" -o /dev/null "$src" >/dev/null 2>&1; then arch=""; fi
		v="$v@8.5"
	fi
	if [[ -z $v || -z $arch ]]; then
		kl=$(ptxkit_error_lines <<<"$kout")
		verd=NA
		printf '%-5s %-6s %-8s %-22s %-22s %s\n' "$verd" "${v:--}" "${t:--}" "-" "${kl:--}" "$f"
		count[$verd]=$((${count[$verd]:-0} + 1))
		continue
	fi
	pout=$(timeout 120 "$ptxas125" -arch="$arch" -o /dev/null "$src" 2>&1)
	prc=$?
	if grep -q 'Unresolved extern function' <<<"$pout"; then
		c=-c
		pout=$(timeout 120 "$ptxas125" -c -arch="$arch" -o /dev/null "$src" 2>&1)
		prc=$?
		kout=$(timeout 120 "$ptxkit" check -c --format=json --max-diagnostics 0 "$f" 2>/dev/null)
	fi
	pl=$(ptxas_error_lines <<<"$pout")
	kl=$(ptxkit_error_lines <<<"$kout")
	# ptxas stops at a fatal error on a line: compare only up to that line.
	stop=$(grep -m1 -oE 'line [0-9]+; fatal' <<<"$pout" | grep -oE '[0-9]+')
	if [[ -n $stop ]]; then
		pl=$( (tr ' ' '\n' <<<"$pl"; echo "$stop") | grep -E '^[0-9]+$' | sort -nu | tr '\n' ' ')
		kl=$(tr ' ' '\n' <<<"$kl" | awk -v s="$stop" '$1 != "" && $1 <= s' | tr '\n' ' ')
	fi
	note=""
	if ((prc != 0)) && [[ -z $pl ]]; then pl="fatal "; fi
	if ((prc != 0)) && [[ -x $ptxas118 ]]; then
		a118=$arch
		[[ ${t#sm_} -lt 35 ]] 2>/dev/null && a118=sm_35
		timeout 120 "$ptxas118" $c -arch="$a118" -o /dev/null "$src" >/dev/null 2>&1 && note=" (11.8 accepts)"
	fi
	if ((prc == 0)) && [[ -z $kl ]]; then
		verd=AA
	elif ((prc == 0)); then
		verd=FE
	elif [[ -z $kl ]]; then
		verd=FA
	elif [[ $pl == "$kl" ]]; then
		verd=AR
	else
		verd="AR~"
	fi
	count[$verd]=$((${count[$verd]:-0} + 1))
	printf '%-5s %-6s %-8s %-22s %-22s %s%s\n' "$verd" "$v" "$t$c" "${pl:--}" "${kl:--}" "$f" "$note"
	if [[ $verd != AA && $verd != AR ]]; then
		{
			echo "=== $verd $f (ptxas -arch=$arch $c)"
			grep -E 'error' <<<"$pout" | head -20
			"$ptxkit" check $c --max-diagnostics 20 "$f" 2>&1 | grep -E ': error:' | head -20
		} >>"$detail"
	fi
done < <(find "$@" -type f -name '*.ptx' -print0 | sort -z)
echo
total=0
for k in AA AR 'AR~' FE FA NA; do
	printf '%-4s %d\n' "$k" "${count[$k]:-0}"
	total=$((total + ${count[$k]:-0}))
done
echo "all  $total"
