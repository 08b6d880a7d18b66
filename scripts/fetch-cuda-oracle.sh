#!/usr/bin/env bash
# fetch-cuda-oracle.sh: download NVIDIA's ptxas, nvdisasm and cuobjdump (no GPU
# needed) from Debian's non-free archive into a cache folder and print it.
#
#   scripts/fetch-cuda-oracle.sh [12.5|11.8]
#
# ptxkit's differential tests look for the tools in $PTXKIT_CUDA_BIN, then in
# $HOME/.cache/cuda-oracle/12.5/bin (11.8 beside it); they skip when absent.
# The archive is the machine's own Debian mirror, read from its apt
# configuration (/etc/apt/sources.list.d/*.sources, *.list, then
# /etc/apt/sources.list: the first URI ending in /debian), or
# $CUDA_ORACLE_MIRROR when set. The system's apt configuration is left
# alone: a private sources list and package-list folder are used. Exit 0
# with the folder on stdout.
set -euo pipefail
version=${1:-12.5}
case $version in
  11.8) suite=bookworm ;;
  12.5) suite=experimental ;;
  *) echo "fetch-cuda-oracle: unsupported version '$version' (12.5 or 11.8)" >&2; exit 2 ;;
esac
dest=${CUDA_ORACLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuda-oracle}/$version
if [[ -x $dest/bin/ptxas && -x $dest/bin/nvdisasm && -x $dest/bin/cuobjdump ]]; then
  echo "$dest/bin"; exit 0
fi
# apt_uris prints every archive URI of the machine's apt sources, deb822
# files first.
apt_uris() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -r $f ]] && awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list; do
    [[ -r $f ]] && sed -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" { print $2 }'
  done
  return 0
}
mirror=${CUDA_ORACLE_MIRROR:-$(apt_uris | grep -E '/debian/?$' | head -n 1 || true)}
if [[ -z $mirror ]]; then
  echo "fetch-cuda-oracle: no Debian archive in /etc/apt's sources; set CUDA_ORACLE_MIRROR to one (a URI ending in /debian)" >&2
  exit 2
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror%/} $suite non-free" >"$tmp/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$tmp/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache::Archives=$tmp/cache"
  -o "APT::Get::List-Cleanup=0" -o "Debug::NoLocking=1")
apt-get "${apt_opts[@]}" update >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
pkgver=$(apt-cache "${apt_opts[@]}" madison nvidia-cuda-toolkit | awk -v v="$version" '$3 ~ "^" v { print $3; exit }')
[[ -n $pkgver ]] || { echo "fetch-cuda-oracle: nvidia-cuda-toolkit $version not found in $suite" >&2; exit 1; }
(cd "$tmp" && apt-get "${apt_opts[@]}" download "nvidia-cuda-toolkit=$pkgver" >"$tmp/log" 2>&1) || { cat "$tmp/log" >&2; exit 1; }
dpkg -x "$tmp"/nvidia-cuda-toolkit_*.deb "$tmp/root"
mkdir -p "$dest/bin"
for tool in ptxas nvdisasm cuobjdump; do install -m 0755 "$tmp/root/usr/bin/$tool" "$dest/bin/$tool"; done
"$dest/bin/ptxas" --version >/dev/null
echo "$dest/bin"
