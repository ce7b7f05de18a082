#!/usr/bin/env bash
# Prepares what scripts/device-check.sh needs on a GPU machine that has no
# Go: the test binary of engine/backend/cuda, synthgguf and isagi, built here, and the
# fixture models, all under .device/ (ignored by git; the device tool carries
# it). The transfer is limited to 64 MiB with the work tree, so the fixtures
# come in two sets:
#
#	scripts/device-bundle.sh        set a: stories260K, archs, kjv q4_k_m
#	                                and the quants that fit beside isagi
#	                                (35 MB with its two embedded models):
#	                                q2_k, q4_0; kjv q8_0 is
#	                                demo/kjv-q8_0.gguf, in the tree), the
#	                                kernel, leak, memcheck, CLI and speed
#	                                checks, and issue 55's goals (their
#	                                models are made on the machine by
#	                                synthgguf, so they add nothing here)
#	scripts/device-bundle.sh b      set b: kjv f16, q4_k_s and the quants
#	                                q3_k_s, q4_1, q5_1, iq4_nl, q5_0:
#	                                conformance only
#	scripts/device-bundle.sh c      set c: kjv f32 and the quants q3_k_m, q5_k_m,
#	                                q6_k, iq4_xs: conformance only
#	scripts/device-bundle.sh cuda3  set a's fixtures without isagi: conformance,
#	                                memcheck and issue 55's goals
#	                                (device-check.sh runs it as
#	                                ISAGI_DEVICE_ONLY=cuda3), for when set a
#	                                does not fit beside the work tree
set -euo pipefail
cd "$(dirname "$0")/.."
set_=${1:-a}
fx=${FIXTURES:-../shared/fixtures}
[ -d "$fx" ] || { echo "device-bundle: $fx is missing" >&2; exit 1; }
rm -rf .device
mkdir -p .device/fixtures/kjv .device/fixtures/quants .device/fixtures/archs .device/fixtures/stories260k
export CGO_ENABLED=1
# Stripped (-s -w): the symbol tables would take a fifth of the transfer.
go test -c -ldflags "-s -w" -o .device/cuda.test ./engine/backend/cuda
go build -ldflags "-s -w" -o .device/synthgguf ./engine/internal/synth/synthgguf
# Only set a runs the command-line checks, and isagi alone is 18 MB packed.
if [ "$set_" = a ]; then
	go build -ldflags "-s -w -X main.version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)" -o .device/isagi ./cmd/isagi
fi
gzip -6 .device/*.test .device/synthgguf $([ -e .device/isagi ] && echo .device/isagi)
case "$set_" in
a | cuda3)
	cp "$fx"/stories260k/*.gguf .device/fixtures/stories260k/
	cp "$fx"/kjv/kjv-q4_k_m.gguf .device/fixtures/kjv/
	cp "$fx"/archs/*.gguf .device/fixtures/archs/
	for q in qwen2-q4_k_m llama-rope-freqs-q4_k_m kjv-q2_k kjv-q4_0; do
		cp "$fx/quants/$q.gguf" .device/fixtures/quants/
	done
	;;
b)
	cp "$fx"/kjv/kjv-f16.gguf "$fx"/kjv/kjv-q4_k_s.gguf .device/fixtures/kjv/
	for q in kjv-q3_k_s kjv-q4_1 kjv-q5_1 kjv-iq4_nl kjv-q5_0; do
		cp "$fx/quants/$q.gguf" .device/fixtures/quants/
	done
	;;
c)
	cp "$fx"/kjv/kjv-f32.gguf .device/fixtures/kjv/
	for q in kjv-q3_k_m kjv-q5_k_m kjv-q6_k kjv-iq4_xs; do
		cp "$fx/quants/$q.gguf" .device/fixtures/quants/
	done
	;;
*)
	echo "device-bundle: set a, b, c or cuda3, not $set_" >&2
	exit 2
	;;
esac
echo "$set_" >.device/set
# The device tool carries at most 64 MiB with the work tree.
tree=$( (git ls-files -z; git ls-files -z --others --exclude-standard) | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
total=$(($(du -sb .device | cut -f1) + tree))
echo "device-bundle: set $set_, $((total >> 20)) MiB with the work tree (the limit is 64)"
[ $total -le $((64 << 20)) ] || { echo "device-bundle: too large to carry" >&2; exit 1; }
