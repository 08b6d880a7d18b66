#!/usr/bin/env bash
# fetch-cccl.sh: fetch the CUDA C++ core libraries 2.5 (libcu++ <cuda/barrier>, <nv/target>, CUB, Thrust) as
# headers from Debian's archive into a private folder, and print the include folder to pass to nvcc with -I.
# nvcc 12.5 itself comes from ../shared/tools/cuda-nvcc, which does not include these headers; many
# cuda-samples (cooperative groups, cuda::barrier, CUB and Thrust users) need them.
#
#   scripts/fetch-cccl.sh        -> e.g. /root/.cache/cccl-2.5/usr/include
#
# The system's apt sources are not touched: a private sources list is built from the mirror this machine's
# apt already uses (or $CCCL_MIRROR). Exit status 0 with the folder on stdout; non-zero with a reason on stderr.
set -euo pipefail
cache=${CCCL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cccl-2.5}
inc=$cache/usr/include
if [[ -f $inc/cuda/barrier && -d $inc/cub && -d $inc/thrust && -f $cache/.ok ]]; then echo "$inc"; exit 0; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/archives/partial" "$cache"
mirror=${CCCL_MIRROR:-$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}')}
[[ -n $mirror ]] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null)
[[ -n $mirror ]] || { echo "fetch-cccl: no Debian mirror in the apt sources; set CCCL_MIRROR" >&2; exit 1; }
{
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror unstable main"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror experimental main"
} >"$work/sources.list"
opts=(-o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=-"
      -o "Dir::State::Lists=$work/lists" -o "Dir::Cache::Archives=$work/archives"
      -o "APT::Get::List-Cleanup=0" -o "Debug::NoLocking=1")
apt-get "${opts[@]}" update >"$work/update.log" 2>&1 || { cat "$work/update.log" >&2; exit 1; }
for p in libcu++-dev libcub-dev libthrust-dev; do
  v=$(apt-cache "${opts[@]}" madison "$p" | awk '$3 ~ /^2\.5\./ {print $3; exit}')
  [[ -n $v ]] || { echo "fetch-cccl: no $p 2.5 in unstable or experimental" >&2; exit 1; }
  (cd "$work" && apt-get "${opts[@]}" download "$p=$v" >>"$work/download.log" 2>&1) \
    || { cat "$work/download.log" >&2; exit 1; }
done
for d in "$work"/*.deb; do dpkg -x "$d" "$cache"; done
[[ -f $inc/cuda/barrier && -d $inc/cub && -d $inc/thrust ]] || { echo "fetch-cccl: the packages lack the expected headers under $inc" >&2; exit 1; }
touch "$cache/.ok"
echo "$inc"
