#!/usr/bin/env bash
# cuda-samples.sh: build a listed set of NVIDIA cuda-samples (v12.5) with nvcc 12.5 for sm_90 with PTX embedded,
# each with the static CUDA runtime (nvcc's default) and with -cudart shared, run each under `ptxkit exec`, and
# print a table: sample, runtime, PASS (exit 0), FAIL (another exit status), TIME (killed after $TIMEOUT s),
# BUILD (did not compile), with the CPU seconds (user+sys) of the run.
#
#   CUDA_SAMPLES=~/src/cuda-samples scripts/cuda-samples.sh [NAME...]
#
# Environment:
#   CUDA_SAMPLES  a checkout of github's NVIDIA/cuda-samples at tag v12.5 (required)
#   PTXKIT_NVCC   the nvcc to use (default: the one ../shared/tools/cuda-nvcc fetches into the user cache)
#   CCCL_INCLUDE  libcu++/CUB/Thrust 2.5 headers (default: what scripts/fetch-cccl.sh fetches)
#   PTXKIT        the ptxkit binary (default: built from this tree into $OUT)
#   OUT           where binaries and logs go (default: a new temporary folder, kept)
#   TIMEOUT       seconds per run (default 600)
# With NAME arguments only those samples of the list run. Runs are one at a time (the emulator uses every core).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
: "${CUDA_SAMPLES:?set CUDA_SAMPLES to a checkout of NVIDIA/cuda-samples v12.5}"
[[ -d $CUDA_SAMPLES/Samples && -d $CUDA_SAMPLES/Common ]] || { echo "cuda-samples.sh: $CUDA_SAMPLES has no Samples/ and Common/" >&2; exit 2; }
nvcc=${PTXKIT_NVCC:-${XDG_CACHE_HOME:-$HOME/.cache}/cuda-nvcc/12.5/usr/lib/nvidia-cuda-toolkit/bin/nvcc}
[[ -x $nvcc ]] || { echo "cuda-samples.sh: no nvcc at $nvcc (run ../shared/tools/cuda-nvcc or set PTXKIT_NVCC)" >&2; exit 2; }
cccl=${CCCL_INCLUDE:-${XDG_CACHE_HOME:-$HOME/.cache}/cccl-2.5/usr/include}
[[ -f $cccl/cuda/barrier ]] || { echo "cuda-samples.sh: no CCCL headers at $cccl (run scripts/fetch-cccl.sh or set CCCL_INCLUDE)" >&2; exit 2; }
# The shared runtime libcudart.so.12 sits next to nvcc's folder in the cuda-nvcc layout.
cudart_dir=${PTXKIT_CUDART_DIR:-$(cd "$(dirname "$nvcc")/../../x86_64-linux-gnu" 2>/dev/null && pwd)}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
timeout_s=${TIMEOUT:-600}
ptxkit=${PTXKIT:-$out/ptxkit}
if [[ -z ${PTXKIT:-} ]]; then (cd "$here" && go build -o "$ptxkit" ./cmd/ptxkit) || exit 2; fi

# name | folder under Samples/ | device code built next to the program (KIND:SOURCE:OUTPUT) | extra nvcc flags
samples='
asyncAPI|0_Introduction/asyncAPI||
simpleAssert|0_Introduction/simpleAssert||
simpleCallback|0_Introduction/simpleCallback||
simpleZeroCopy|0_Introduction/simpleZeroCopy||
simpleStreams|0_Introduction/simpleStreams||
simpleVoteIntrinsics|0_Introduction/simpleVoteIntrinsics||
simpleAtomicIntrinsics|0_Introduction/simpleAtomicIntrinsics||
simplePrintf|0_Introduction/simplePrintf||
simpleTemplates|0_Introduction/simpleTemplates||
simpleOccupancy|0_Introduction/simpleOccupancy||
simpleAWBarrier|0_Introduction/simpleAWBarrier||
simpleCooperativeGroups|0_Introduction/simpleCooperativeGroups||
cppOverload|0_Introduction/cppOverload||
matrixMul|0_Introduction/matrixMul||
template|0_Introduction/template||
vectorAddDrv|0_Introduction/vectorAddDrv|fatbin:vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin|
matrixMulDrv|0_Introduction/matrixMulDrv|fatbin:matrixMul_kernel.cu:matrixMul_kernel64.fatbin|
simpleDrvRuntime|0_Introduction/simpleDrvRuntime|fatbin:vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin|
vectorAddMMAP|0_Introduction/vectorAddMMAP|fatbin:vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin|
UnifiedMemoryStreams|0_Introduction/UnifiedMemoryStreams||-Xcompiler -fopenmp
systemWideAtomics|0_Introduction/systemWideAtomics||
simpleHyperQ|0_Introduction/simpleHyperQ||
streamOrderedAllocation|2_Concepts_and_Techniques/streamOrderedAllocation||
shfl_scan|2_Concepts_and_Techniques/shfl_scan||
reductionMultiBlockCG|2_Concepts_and_Techniques/reductionMultiBlockCG||
threadFenceReduction|2_Concepts_and_Techniques/threadFenceReduction||
sortingNetworks|2_Concepts_and_Techniques/sortingNetworks||
scan|2_Concepts_and_Techniques/scan||
StreamPriorities|3_CUDA_Features/StreamPriorities||
ptxjit|3_CUDA_Features/ptxjit|ptx:ptxjit_kernel.cu:ptxjit_kernel64.ptx|
newdelete|3_CUDA_Features/newdelete||
simpleCudaGraphs|3_CUDA_Features/simpleCudaGraphs||
graphMemoryNodes|3_CUDA_Features/graphMemoryNodes||
jacobiCudaGraphs|3_CUDA_Features/jacobiCudaGraphs||
binaryPartitionCG|3_CUDA_Features/binaryPartitionCG||
warpAggregatedAtomicsCG|3_CUDA_Features/warpAggregatedAtomicsCG||
globalToShmemAsyncCopy|3_CUDA_Features/globalToShmemAsyncCopy||
cudaTensorCoreGemm|3_CUDA_Features/cudaTensorCoreGemm||
LargeKernelParameter|6_Performance/LargeKernelParameter||
alignedTypes|6_Performance/alignedTypes||
transpose|6_Performance/transpose||
mergeSort|2_Concepts_and_Techniques/mergeSort||
radixSortThrust|2_Concepts_and_Techniques/radixSortThrust||
reduction|2_Concepts_and_Techniques/reduction||
simpleSurfaceWrite|0_Introduction/simpleSurfaceWrite||
simpleLayeredTexture|0_Introduction/simpleLayeredTexture||
simpleCubemapTexture|0_Introduction/simpleCubemapTexture||
simplePitchLinearTexture|0_Introduction/simplePitchLinearTexture||
simpleTexture|0_Introduction/simpleTexture||
simpleTextureDrv|0_Introduction/simpleTextureDrv|fatbin:simpleTexture_kernel.cu:simpleTexture_kernel64.fatbin|
clock|0_Introduction/clock||
concurrentKernels|0_Introduction/concurrentKernels||
fp16ScalarProduct|0_Introduction/fp16ScalarProduct||
simpleMultiCopy|0_Introduction/simpleMultiCopy||
graphConditionalNodes|3_CUDA_Features/graphConditionalNodes||
'

wanted=" $* "
base_flags=(-ccbin "${CXX:-g++}" -I"$CUDA_SAMPLES/Common" -I"$cccl" -gencode arch=compute_90,code=compute_90)

build() { # name dir devcode extra runtime -> builds $out/bin-RUNTIME/name
  local name=$1 dir=$2 dev=$3 extra=$4 rt=$5 dst=$out/bin-$5 src=$CUDA_SAMPLES/Samples/$2 skip=
  mkdir -p "$dst"
  if [[ -n $dev ]]; then
    IFS=: read -r kind devsrc devout <<<"$dev"
    skip=$devsrc
    "$nvcc" "${base_flags[@]}" -"$kind" -o "$dst/$devout" "$src/$devsrc" || return 1
  fi
  local files=()
  for f in "$src"/*.cu "$src"/*.cpp; do
    [[ -e $f && $(basename "$f") != "$skip" ]] && files+=("$f")
  done
  local libs=()
  # Driver-API samples link against the toolkit's stub libcuda.so (its SONAME is libcuda.so.1, which
  # ptxkit exec provides at run time).
  [[ $dev != "" ]] && libs=(-L"$cudart_dir/stubs" -lcuda)
  # shellcheck disable=SC2086 # extra holds several flags
  "$nvcc" "${base_flags[@]}" $extra -cudart "$rt" -o "$dst/$name" "${files[@]}" "${libs[@]}"
}

printf '%-26s %-7s %-6s %8s\n' sample cudart result cpu_s
while IFS='|' read -r name dir dev extra; do
  [[ -n $name ]] || continue
  [[ $wanted == "  " || $wanted == *" $name "* ]] || continue
  if [[ ! -d $CUDA_SAMPLES/Samples/$dir ]]; then # samples move between folders from release to release
    found=$(cd "$CUDA_SAMPLES/Samples" && ls -d -- */"$name" 2>/dev/null | head -1)
    [[ -n $found ]] && dir=$found
  fi
  for rt in static shared; do
    log=$out/$name.$rt.log
    if ! build "$name" "$dir" "$dev" "$extra" "$rt" >"$log.build" 2>&1; then
      printf '%-26s %-7s %-6s %8s\n' "$name" "$rt" BUILD -; continue
    fi
    (cd "$CUDA_SAMPLES/Samples/$dir" && LD_LIBRARY_PATH=$cudart_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
      /usr/bin/time -o "$log.time" -f '%U %S' timeout "$timeout_s" "$ptxkit" exec "$out/bin-$rt/$name") >"$log" 2>&1
    rc=$?
    cpu=$(awk 'END {printf "%.2f", $1 + $2}' "$log.time" 2>/dev/null)
    case $rc in 0) res=PASS ;; 124|137) res=TIME ;; *) res=FAIL ;; esac
    printf '%-26s %-7s %-6s %8s\n' "$name" "$rt" "$res" "${cpu:--}"
  done
done <<<"$samples"
echo "logs and binaries: $out"
