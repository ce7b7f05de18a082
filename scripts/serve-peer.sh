#!/usr/bin/env bash
# isagi serve against native llama-server on the same GGUF files: a
# concurrency sweep (scripts/serveload -sweep: CLIENTS clients, each sending
# PER_CLIENT streamed completions of MAX_TOKENS tokens after a prompt of
# about PROMPT_WORDS words, back to back), the servers taking turns ROUNDS
# times, one at a time. Prints one markdown table per model and side and
# leaves the raw figures in $OUT/raw.jsonl (docs/serve.md keeps a report).
#
#   LLAMA_BIN=/path/to/llama.cpp/build/bin scripts/serve-peer.sh
#
# The native llama.cpp build is your own (the llama-server and
# llama-quantize targets): this script builds nothing of another project's.
# Without LLAMA_BIN only isagi is measured, and the script says so. The
# models are synthetic (engine/internal/synth's F16, quantised by
# llama-quantize), as in scripts/bench-peer.sh; their vocabulary's byte
# tokens 0x80–0xFF are banned in every request (logit_bias), because
# llama-server answers 500 to a reply that ends inside a UTF-8 character.
#
# Knobs: OUT (default /tmp/isagi-serve-peer), MODELS ("smollm2-135m:Q8_0
# llama-1b:Q4_K_M"), CLIENTS ("1 2 4 8 16"), PER_CLIENT (4), MAX_TOKENS
# (64), PROMPT_WORDS (16), ROUNDS (2), THREADS (2), PARALLEL (16: the batch
# and -np), CTX (1024 per conversation), ISAGI_FLAGS (more flags for isagi
# serve, e.g. "--kv-type f16"), OLD_ISAGI (a second isagi binary measured
# the same way, e.g. a build of an earlier commit).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/isagi-serve-peer}
MODELS=${MODELS:-smollm2-135m:Q8_0 llama-1b:Q4_K_M}
CLIENTS=${CLIENTS:-1 2 4 8 16}
PER_CLIENT=${PER_CLIENT:-4}
MAX_TOKENS=${MAX_TOKENS:-64}
PROMPT_WORDS=${PROMPT_WORDS:-16}
ROUNDS=${ROUNDS:-2}
THREADS=${THREADS:-2}
PARALLEL=${PARALLEL:-16}
CTX=${CTX:-1024}
PORT=${PORT:-18535}
mkdir -p "$OUT"
go build -o "$OUT/isagi" ./cmd/isagi
go build -o "$OUT/serveload" ./scripts/serveload
go build -o "$OUT/synthgguf" ./engine/internal/synth/synthgguf
llama=
if [ -n "${LLAMA_BIN:-}" ] && [ -x "$LLAMA_BIN/llama-server" ] && [ -x "$LLAMA_BIN/llama-quantize" ]; then
	llama=$LLAMA_BIN
else
	echo "serve-peer: LLAMA_BIN has no llama-server and llama-quantize: measuring isagi alone" >&2
fi
levels=$(echo $CLIENTS | tr ' ' ',')
extra=$(python3 -c 'import json;print(json.dumps({"logit_bias":{str(i):False for i in range(131,259)}}))')
raw=$OUT/raw.jsonl
: >"$raw"

wait_up() { # port
	for _ in $(seq 1 300); do
		curl -sf "http://127.0.0.1:$1/health" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "serve-peer: no server on port $1" >&2
	return 1
}

sweep() { # label port model
	"$OUT/serveload" -url "http://127.0.0.1:$2" -label "$1" -sweep "$levels" -per-client "$PER_CLIENT" \
		-max-tokens "$MAX_TOKENS" -prompt-words "$PROMPT_WORDS" -ignore-eos -warmup 2 -extra "$extra" -json |
		python3 -c 'import json,sys
for l in sys.stdin:
    l=l.strip()
    if l.startswith("{"):
        r=json.loads(l); r["model"]=sys.argv[1]; print(json.dumps(r))' "$3" >>"$raw"
}

run_isagi() { # label binary model
	"$2" serve --model "$3" --port "$PORT" --parallel "$PARALLEL" --ctx "$CTX" -t "$THREADS" ${ISAGI_FLAGS:-} >"$OUT/$1.log" 2>&1 &
	local pid=$!
	wait_up "$PORT"
	sweep "$1" "$PORT" "$(basename "$3")"
	kill -INT $pid
	wait $pid || true
}

run_llama() { # model
	"$llama/llama-server" -m "$1" -np "$PARALLEL" -c $((PARALLEL * CTX)) -t "$THREADS" --port "$PORT" >"$OUT/llama.log" 2>&1 &
	local pid=$!
	wait_up "$PORT"
	sweep llama.cpp "$PORT" "$(basename "$1")"
	kill $pid
	wait $pid || true
}

for mt in $MODELS; do
	shape=${mt%%:*} ty=${mt##*:}
	f16=$OUT/$shape-F16.gguf m=$OUT/$shape-$ty.gguf
	if [ ! -s "$m" ]; then
		[ -s "$f16" ] || "$OUT/synthgguf" "$shape" F16 "$f16"
		if [ "$ty" = F16 ]; then
			m=$f16
		elif [ -n "$llama" ]; then
			"$llama/llama-quantize" "$f16" "$m" "$ty" >/dev/null 2>&1 || { echo "serve-peer: llama-quantize $ty failed" >&2; exit 1; }
		else
			echo "serve-peer: $m needs llama-quantize (LLAMA_BIN)" >&2
			exit 1
		fi
	fi
	for r in $(seq 1 "$ROUNDS"); do
		echo "serve-peer: $shape $ty round $r" >&2
		run_isagi isagi "$OUT/isagi" "$m"
		[ -z "$llama" ] || run_llama "$m"
		[ -z "${OLD_ISAGI:-}" ] || run_isagi isagi-old "$OLD_ISAGI" "$m"
	done
done

python3 - "$raw" <<'EOF'
import json, sys, statistics, collections
rows = collections.defaultdict(list)
for l in open(sys.argv[1]):
    r = json.loads(l)
    rows[(r["model"], r["label"], r["clients"])].append(r)
models = sorted({k[0] for k in rows}); labels = sorted({k[1] for k in rows})
def med(rs, k):
    v = [r[k] for r in rs if r.get(k) is not None]
    return (statistics.median(v), min(v), max(v)) if v else (float("nan"),) * 3
for m in models:
    print(f"\n### {m}\n")
    print("| server | clients | tok/s median (min–max) | TTFT p50 ms | TTFT p99 ms | TPOT p50 ms | failed |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for lab in labels:
        for c in sorted({k[2] for k in rows if k[0] == m and k[1] == lab}):
            rs = rows[(m, lab, c)]
            t = med(rs, "tok_s")
            print(f"| {lab} | {c} | {t[0]:.1f} ({t[1]:.1f}–{t[2]:.1f}) | {med(rs,'ttft_p50_ms')[0]:.0f} | {med(rs,'ttft_p99_ms')[0]:.0f} | {med(rs,'tpot_p50_ms')[0]:.1f} | {sum(r.get('failed',0) for r in rs)} |")
EOF
