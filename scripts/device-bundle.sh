#!/usr/bin/env bash
# Prepares what scripts/device-check.sh needs on a GPU machine that has no
# Go: the test binary of engine/backend/cuda, synthgguf and isagi, built here, and the
# fixture models, all under .device/ (ignored by git; the device tool carries
# it). The transfer is limited to 64 MiB with the work tree, and the tree
# alone is about 38 MB (fixture models, docs, the gzipped PTX), so what
# travels beside it comes in sets of at most about 20 MB:
#
#	scripts/device-bundle.sh        set a: stories260K, archs, kjv q4_k_m and
#	                                the quants qwen2-q4_k_m,
#	                                llama-rope-freqs-q4_k_m, q2_k, q4_0 (kjv
#	                                q8_0 is demo/kjv-q8_0.gguf, in the tree):
#	                                the kernel, leak, memcheck and speed
#	                                checks and issue 55's goals (their models
#	                                are made on the machine by synthgguf)
#	scripts/device-bundle.sh cuda3  set a, run as ISAGI_DEVICE_ONLY=cuda3:
#	                                conformance, memcheck and issue 55's goals
#	                                alone, for a session short of device time
#	scripts/device-bundle.sh cli    isagi alone (20 MB packed, its two models
#	                                embedded), no fixtures: the command-line
#	                                check (isagi run --gpu against --cpu,
#	                                isagi bench)
#	scripts/device-bundle.sh b      kjv f16 and q3_k_s      } conformance
#	scripts/device-bundle.sh b2     kjv q4_k_s, q4_1, q5_1  } only
#	scripts/device-bundle.sh c      q5_0, iq4_nl, q3_k_m, iq4_xs
#	scripts/device-bundle.sh c2     q5_k_m, q6_k
#	scripts/device-bundle.sh f32    kjv f32 (23 MB) alone
set -euo pipefail
cd "$(dirname "$0")/.."
set_=${1:-a}
fx=${FIXTURES:-../shared/fixtures}
[ -d "$fx" ] || { echo "device-bundle: $fx is missing" >&2; exit 1; }
rm -rf .device
mkdir -p .device/fixtures/kjv .device/fixtures/quants .device/fixtures/archs .device/fixtures/stories260k
export CGO_ENABLED=1
# Stripped (-s -w): the symbol tables would take a fifth of the transfer.
if [ "$set_" != cli ]; then
	go test -c -ldflags "-s -w" -o .device/cuda.test ./engine/backend/cuda
	# Issue 54's serve measurements (serve/servegpu) for sets a and cuda3:
	# a binary of their own, since engine's tests cannot import serve.
	case "$set_" in a | cuda3) go test -c -ldflags "-s -w" -o .device/servegpu.test ./serve/servegpu ;; esac
	go build -ldflags "-s -w" -o .device/synthgguf ./engine/internal/synth/synthgguf
fi
# Only set cli carries isagi (20 MB packed): beside set a's fixtures it
# would pass the limit.
if [ "$set_" = cli ]; then
	go build -ldflags "-s -w -X main.version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)" -o .device/isagi ./cmd/isagi
fi
gzip -6 $(ls .device/cuda.test .device/servegpu.test .device/synthgguf .device/isagi 2>/dev/null)
case "$set_" in
a | cuda3)
	cp "$fx"/stories260k/*.gguf .device/fixtures/stories260k/
	cp "$fx"/kjv/kjv-q4_k_m.gguf .device/fixtures/kjv/
	cp "$fx"/archs/*.gguf .device/fixtures/archs/
	for q in qwen2-q4_k_m llama-rope-freqs-q4_k_m kjv-q2_k kjv-q4_0; do
		cp "$fx/quants/$q.gguf" .device/fixtures/quants/
	done
	;;
cli) ;;
b)
	cp "$fx"/kjv/kjv-f16.gguf .device/fixtures/kjv/
	cp "$fx"/quants/kjv-q3_k_s.gguf .device/fixtures/quants/
	;;
b2)
	cp "$fx"/kjv/kjv-q4_k_s.gguf .device/fixtures/kjv/
	for q in kjv-q4_1 kjv-q5_1; do
		cp "$fx/quants/$q.gguf" .device/fixtures/quants/
	done
	;;
c)
	for q in kjv-q5_0 kjv-iq4_nl kjv-q3_k_m kjv-iq4_xs; do
		cp "$fx/quants/$q.gguf" .device/fixtures/quants/
	done
	;;
f32)
	cp "$fx"/kjv/kjv-f32.gguf .device/fixtures/kjv/
	;;
c2)
	for q in kjv-q5_k_m kjv-q6_k; do
		cp "$fx/quants/$q.gguf" .device/fixtures/quants/
	done
	;;
*)
	echo "device-bundle: set a, cuda3, cli, b, b2, c, c2 or f32, not $set_" >&2
	exit 2
	;;
esac
echo "$set_" >.device/set
# The device tool carries at most 64 MiB with the work tree.
tree=$( (git ls-files -z; git ls-files -z --others --exclude-standard) | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
total=$(($(du -sb .device | cut -f1) + tree))
echo "device-bundle: set $set_, $((total >> 20)) MiB with the work tree (the limit is 64)"
[ $total -le $((64 << 20)) ] || { echo "device-bundle: too large to carry" >&2; exit 1; }
