#!/usr/bin/env bash
# Checks the CUDA kernels without a GPU (part of make test):
#  1. the committed PTX (gzipped) of every engine/backend/cuda/kernels/*.cu is exactly what nvcc
#     11.8 makes of the source (so the embedded kernels are the reviewed
#     source, not a stale or hand-edited build);
#  2. ptxas accepts it for sm_90 (the H100) and sm_80; register spills
#     are listed (a spill is slower, not wrong).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/cuda-toolkit.sh
want="release 11.8"
if ! nvcc --version | grep -q "$want"; then
	echo "ptx-check: the committed PTX is made by nvcc 11.8 ($want); this nvcc is: $(nvcc --version | tail -1)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp engine/backend/cuda/kernels/*.cu engine/backend/cuda/kernels/*.cuh "$tmp"/
fail=0
for cu in engine/backend/cuda/kernels/*.cu; do
	name=$(basename "$cu" .cu)
	(cd "$tmp" && nvcc --gpu-architecture=compute_80 -ptx -O3 "$name.cu" -o "$name.ptx")
	if [ ! -e "engine/backend/cuda/kernels/$name.ptx.gz" ] || ! gunzip -c "engine/backend/cuda/kernels/$name.ptx.gz" | cmp -s "$tmp/$name.ptx" -; then
		echo "ptx-check: engine/backend/cuda/kernels/$name.ptx.gz is not what $name.cu compiles to: run make ptx and commit it" >&2
		fail=1
		continue
	fi
	for arch in sm_80 sm_90; do
		if ! ptxas -arch=$arch -v "$tmp/$name.ptx" -o "$tmp/$name.$arch.cubin" 2>"$tmp/$name.$arch.log"; then
			cat "$tmp/$name.$arch.log" >&2
			echo "ptx-check: ptxas -arch=$arch rejects $name.ptx" >&2
			fail=1
		elif grep -qE '[1-9][0-9]* bytes spill' "$tmp/$name.$arch.log"; then
			echo "ptx-check: note: $name.ptx spills registers on $arch in $(grep -B3 -E '[1-9][0-9]* bytes spill' "$tmp/$name.$arch.log" | grep -oE "entry function '[a-z0-9_]+'" | tr '\n' ' ')" >&2
		fi
	done
done
[ $fail = 0 ] && echo "ptx-check: $(ls engine/backend/cuda/kernels/*.ptx.gz | wc -l) PTX modules match their source and assemble for sm_80 and sm_90"
exit $fail
