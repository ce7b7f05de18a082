#!/usr/bin/env bash
# isagi against native llama.cpp on the same GGUF files: prefill and decode
# tok/s, both sides on this machine in one run, alternated, each side's best
# over ROUNDS. Prints a markdown table (docs/performance.md keeps one) and
# leaves every raw figure in $OUT/raw.jsonl.
#
#   LLAMA_BIN=/path/to/llama.cpp/build/bin scripts/bench-peer.sh
#   LLAMACPP_SRC=/path/to/llama.cpp scripts/bench-peer.sh   # builds it first
#
# llama.cpp is built natively (GGML_NATIVE, this CPU's ISA) from a source
# tree you provide (git clone https://github.com/ggml-org/llama.cpp); the
# build takes ~15 minutes on 2 cores. The models are synthetic (random
# weights, real shapes): engine/internal/synth writes F16, and llama.cpp's own
# llama-quantize makes every other type, so both sides read llama.cpp's layout
# (Q4_K_M mixes in Q6_K exactly as it does for downloaded models).
#
# Knobs: OUT (work dir, default /tmp/isagi-bench-peer), SHAPES
# ("smollm2-135m llama-1b"), TYPES ("Q8_0 Q4_0 Q4_K_M Q6_K F16"), THREADS
# ("1 2"), ROUNDS (2), P (128) and N (64) prompt and decode tokens.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/isagi-bench-peer}
SHAPES=${SHAPES:-smollm2-135m llama-1b}
TYPES=${TYPES:-Q8_0 Q4_0 Q4_K_M Q6_K F16}
THREADS=${THREADS:-1 2}
ROUNDS=${ROUNDS:-2}
P=${P:-128}
N=${N:-64}
mkdir -p "$OUT"

if [ -z "${LLAMA_BIN:-}" ]; then
	if [ -z "${LLAMACPP_SRC:-}" ]; then
		echo "bench-peer: set LLAMA_BIN to a llama.cpp build/bin, or LLAMACPP_SRC to a llama.cpp source tree to build" >&2
		exit 2
	fi
	LLAMA_BIN=$OUT/llamacpp/bin
	if [ ! -x "$LLAMA_BIN/llama-bench" ]; then
		cmake -S "$LLAMACPP_SRC" -B "$OUT/llamacpp" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
			-DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF >/dev/null
		cmake --build "$OUT/llamacpp" -j"$(nproc)" --target llama-bench llama-quantize >/dev/null
	fi
fi
for t in llama-bench llama-quantize; do
	[ -x "$LLAMA_BIN/$t" ] || { echo "bench-peer: no $t in $LLAMA_BIN" >&2; exit 2; }
done

go build -o "$OUT/isagi" ./cmd/isagi
models=()
for s in $SHAPES; do
	f16=$OUT/$s-F16.gguf
	[ -s "$f16" ] || go run ./engine/internal/synth/synthgguf "$s" F16 "$f16"
	for ty in $TYPES; do
		m=$OUT/$s-$ty.gguf
		if [ "$ty" != F16 ] && [ ! -s "$m" ]; then
			"$LLAMA_BIN/llama-quantize" "$f16" "$m" "$ty" >/dev/null 2>&1 ||
				{ echo "bench-peer: llama-quantize $ty failed" >&2; exit 1; }
		fi
		models+=("$m")
	done
done

raw=$OUT/raw.jsonl
: >"$raw"
for m in "${models[@]}"; do
	name=$(basename "$m" .gguf)
	for t in $THREADS; do
		for r in $(seq "$ROUNDS"); do
			"$OUT/isagi" bench --model "$m" --threads "$t" -p "$P" -n "$N" --json --no-probe |
				python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({"model":sys.argv[1],"side":"isagi","t":int(sys.argv[2]),"pp":d["prefill_tok_s"],"tg":d["decode_tok_s"]}))' "$name" "$t" >>"$raw"
			"$LLAMA_BIN/llama-bench" -m "$m" -t "$t" -p "$P" -n "$N" -r 3 -o jsonl 2>/dev/null |
				python3 -c 'import json,sys
r={"model":sys.argv[1],"side":"llama.cpp","t":int(sys.argv[2])}
for d in map(json.loads, sys.stdin):
    r["pp" if d["n_prompt"] else "tg"]=d["avg_ts"]
    r["build"]=d.get("build_commit", "?")
print(json.dumps(r))' "$name" "$t" >>"$raw"
		done
	done
	echo "bench-peer: $name done" >&2
done

python3 - "$raw" "$P" <<'EOF'
import json, sys
best = {}
for d in map(json.loads, open(sys.argv[1])):
    k = (d["model"], d["side"], d["t"])
    b = best.setdefault(k, {"pp": 0, "tg": 0})
    b["pp"], b["tg"] = max(b["pp"], d["pp"]), max(b["tg"], d["tg"])
models = list(dict.fromkeys(k[0] for k in best))
threads = sorted({k[2] for k in best})
print(f"| model | threads | isagi prefill{sys.argv[2]} / decode tok/s | llama.cpp prefill / decode | ratio prefill / decode |")
print("|---|---:|---|---|---|")
for m in models:
    for t in threads:
        i, l = best.get((m, "isagi", t)), best.get((m, "llama.cpp", t))
        if not i or not l:
            continue
        print(f"| {m} | {t} | {i['pp']:.0f} / {i['tg']:.1f} | {l['pp']:.0f} / {l['tg']:.1f} | "
              f"**{i['pp']/l['pp']:.2f}** / **{i['tg']/l['tg']:.2f}** |")
print()
print("Each side at its best thread count:")
print()
print(f"| model | isagi prefill{sys.argv[2]} / decode tok/s | llama.cpp prefill / decode | ratio prefill / decode |")
print("|---|---|---|---|")
for m in models:
    top = {}
    for side in ("isagi", "llama.cpp"):
        rs = [v for k, v in best.items() if k[0] == m and k[1] == side]
        if rs:
            top[side] = {"pp": max(r["pp"] for r in rs), "tg": max(r["tg"] for r in rs)}
    if len(top) < 2:
        continue
    i, l = top["isagi"], top["llama.cpp"]
    print(f"| {m} | {i['pp']:.0f} / {i['tg']:.1f} | {l['pp']:.0f} / {l['tg']:.1f} | "
          f"**{i['pp']/l['pp']:.2f}** / **{i['tg']/l['tg']:.2f}** |")
EOF
echo
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|f16c|avx512f|avx512bw|avx512vl|avx512_vnni|avx_vnni)$' | tr '\n' ' ')
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) threads; flags: $flags"
echo "llama.cpp build $(python3 -c 'import json,sys; print(next((d["build"] for d in map(json.loads, open(sys.argv[1])) if "build" in d), "?"))' "$raw"); isagi $(git describe --always --dirty)"
