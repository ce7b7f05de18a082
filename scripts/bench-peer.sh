#!/usr/bin/env bash
# isagi against native llama.cpp on the same GGUF files, both sides on this
# machine in one run, alternated. Prints one markdown report
# (docs/performance.md keeps one) and leaves every raw figure in
# $OUT/raw.jsonl. Sections (SECTIONS, default all four):
#
#   types       prefill at each P in PS and decode, every type in TYPES at
#               each shape in SHAPES, at each thread count in THREADS
#   big         decode (and prefill) at the 3B and 8B shapes (BIG_SHAPES,
#               BIG_TYPES), with the decode's weight bandwidth as a share of
#               the STREAM triad measured by isagi bench in the same run
#   depth       decode at each depth in DEPTHS (and the prefill of that many
#               tokens: the 4K row is the long-prompt prefill) on DEPTH_MODEL
#   contention  decode at 1 and 2 threads while one busy process spins on
#               the machine
#
#   LLAMA_BIN=/path/to/llama.cpp/build/bin scripts/bench-peer.sh
#
# The native llama.cpp build is your own: this script builds nothing of
# another project's. Build it natively (GGML_NATIVE, this CPU's ISA) with
# the targets llama-bench, llama-quantize and, for the depth section,
# llama-batched-bench, and point LLAMA_BIN at its bin folder. The models are synthetic (random weights, real shapes):
# engine/internal/synth writes F16, and llama.cpp's own llama-quantize makes
# every other type, so both sides read llama.cpp's layout (Q4_K_M mixes in
# Q6_K and, at SmolLM2's 576-wide rows, Q5_0 exactly as for a downloaded
# file). The 3B and 8B files are random encoded blocks written directly
# (synthgguf -random: quantising a 16 GB F16 file would take longer than the
# benchmark).
#
# Each (model, side, threads) is measured ROUNDS times, the sides taking
# turns; the report shows each side's median at its best thread count with
# the rounds' min–max. llama.cpp's figures come from llama-bench (-r 1 per
# round) and, for depths, llama-batched-bench (decode after a prefilled
# context; this llama-bench has no depth option). llama.cpp keeps its KV
# cache in f16 by default; isagi's is f32 by default, and the depth section
# runs isagi with each of KV_TYPES.
#
# Knobs: OUT (work dir, default /tmp/isagi-bench-peer), SECTIONS, SHAPES
# ("smollm2-135m llama-1b"), TYPES (every common type), PS ("128 512"), N
# (64), THREADS ("1 2"), ROUNDS (3), BIG_SHAPES ("llama-3b llama-8b"),
# BIG_TYPES ("Q4_K_M Q8_0"), BIG_THREADS ("2"), DEPTH_MODEL (smollm2-135m
# Q8_0), DEPTHS ("512 2048 4096 8192"), DEPTH_N (64), DEPTH_THREADS (2),
# KV_TYPES (isagi's --kv-type values for the depth section, "f32 f16"),
# BIG_LAYERS (when set, the big files keep that many layers: the mixtures
# of experts "mixtral" and "qwen3moe-30b-a3b" are 26 and 17 GB whole;
# docs/moe.md).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/isagi-bench-peer}
SECTIONS=${SECTIONS:-types big depth contention}
SHAPES=${SHAPES:-smollm2-135m llama-1b}
TYPES=${TYPES:-Q8_0 Q4_0 Q4_1 Q5_0 Q5_1 IQ4_NL IQ4_XS Q2_K Q3_K_M Q4_K_M Q5_K_M Q6_K F16 BF16}
PS=${PS:-128 512}
N=${N:-64}
THREADS=${THREADS:-1 2}
ROUNDS=${ROUNDS:-3}
BIG_SHAPES=${BIG_SHAPES:-llama-3b llama-8b}
BIG_TYPES=${BIG_TYPES:-Q4_K_M Q8_0}
BIG_THREADS=${BIG_THREADS:-2}
DEPTH_MODEL=${DEPTH_MODEL:-smollm2-135m-Q8_0}
DEPTHS=${DEPTHS:-512 2048 4096 8192}
DEPTH_N=${DEPTH_N:-64}
DEPTH_THREADS=${DEPTH_THREADS:-2}
KV_TYPES=${KV_TYPES:-f32 f16}
mkdir -p "$OUT"

if [ -z "${LLAMA_BIN:-}" ]; then
	echo "bench-peer: set LLAMA_BIN to the bin folder of your own native llama.cpp build (docs/performance.md)" >&2
	exit 2
fi
need=(llama-bench llama-quantize)
case " $SECTIONS " in *" depth "*) need+=(llama-batched-bench) ;; esac
for t in "${need[@]}"; do
	[ -x "$LLAMA_BIN/$t" ] || { echo "bench-peer: no $t in $LLAMA_BIN (build that target in your llama.cpp build)" >&2; exit 2; }
done

# The version is taken with the build: the tree may move on during a long run.
isagi_version=$(git describe --always --dirty)
go build -o "$OUT/isagi" ./cmd/isagi
go build -o "$OUT/synthgguf" ./engine/internal/synth/synthgguf

# model SHAPE TYPE: the file's path, written on first use.
model() {
	local s=$1 ty=$2 cut=
	case " $BIG_SHAPES " in *" $s "*) cut=${BIG_LAYERS:+-L$BIG_LAYERS} ;; esac
	local m=$OUT/$1-$2$cut.gguf
	if [ ! -s "$m" ]; then
		case " $BIG_SHAPES " in
		*" $s "*) "$OUT/synthgguf" -random ${BIG_LAYERS:+-layers "$BIG_LAYERS"} "$s" "$ty" "$m" ;;
		*)
			local f16=$OUT/$s-F16.gguf
			[ -s "$f16" ] || "$OUT/synthgguf" "$s" F16 "$f16"
			if [ "$ty" != F16 ]; then
				"$LLAMA_BIN/llama-quantize" "$f16" "$m" "$ty" >/dev/null 2>&1 ||
					{ echo "bench-peer: llama-quantize $ty failed" >&2; exit 1; }
			fi
			;;
		esac
	fi
	echo "$m"
}

raw=$OUT/raw.jsonl
: >"$raw"
# rec SECTION MODEL SIDE THREADS P N [EXTRA-JSON]: reads one side's JSON on
# stdin and appends a record.
rec() {
	python3 -c '
import json, sys
sec, model, side, t, p, n = sys.argv[1:7]
extra = sys.argv[7] if len(sys.argv) > 7 else ""
r = {"section": sec, "model": model, "side": side, "t": int(t), "p": int(p), "n": int(n)}
r.update(json.loads(extra or "{}"))
text = sys.stdin.read()
try:
    if side == "isagi":
        d = json.loads(text)
        r.update(pp=d["prefill_tok_s"], tg=d["decode_tok_s"], weight_mb=d["weight_mb_per_token"],
                 triad=d.get("triad_gb_s", 0), read=d.get("read_gb_s", 0), kv=d.get("kv_bytes_per_token", 0), kernels=d.get("kernels", ""), prefill_kernels=d.get("prefill_kernels", ""),
                 solo_steps=d.get("solo_steps", 0), parallel_steps=d.get("parallel_steps", 0))
    elif side == "llama.cpp":
        for d in map(json.loads, text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")):
            r["pp" if d["n_prompt"] else "tg"] = d["avg_ts"]
            r["build"] = d.get("build_commit", "?")
    else:  # llama-batched-bench
        d = [json.loads(l) for l in text.splitlines() if l.startswith("{")][-1]
        r.update(side="llama.cpp", pp=d["speed_pp"], tg=d["speed_tg"])
except Exception as e:
    r["error"] = f"{type(e).__name__}: {e}: {text[-300:]!r}"
print(json.dumps(r))' "$@" >>"$raw"
}

isagi_bench() { # MODEL THREADS P N [flags…]
	local m=$1 t=$2 p=$3 n=$4
	shift 4
	timeout 1800 "$OUT/isagi" bench --model "$m" --threads "$t" -p "$p" -n "$n" --json "$@" 2>"$OUT/isagi.err" || true
}

# One round of each side per (model, threads, P); -r 1 so that llama.cpp's
# rounds are measured like isagi's, and the spread is over the same count.
types_section() {
	for s in $SHAPES; do
		for ty in $TYPES; do
			local m name
			m=$(model "$s" "$ty")
			name=$s-$ty
			for r in $(seq "$ROUNDS"); do
				for t in $THREADS; do
					for p in $PS; do
						local n=$N
						[ "$p" = "${PS%% *}" ] || n=1 # decode is read at the first P only
						isagi_bench "$m" "$t" "$p" "$n" --no-probe | rec types "$name" isagi "$t" "$p" "$n"
					done
					"$LLAMA_BIN/llama-bench" -m "$m" -t "$t" -p "$(echo $PS | tr ' ' ,)" -n "$N" -r 1 -o jsonl 2>/dev/null |
						python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    print(json.dumps({"n_prompt": d["n_prompt"], "n_gen": d["n_gen"], "avg_ts": d["avg_ts"], "build_commit": d.get("build_commit", "?")}))' >"$OUT/lb.jsonl"
					for p in $PS; do
						grep "\"n_prompt\": $p," "$OUT/lb.jsonl" | rec types "$name" llama.cpp "$t" "$p" 0 || true
					done
					grep '"n_prompt": 0,' "$OUT/lb.jsonl" | rec types "$name" llama.cpp "$t" 0 "$N" || true
				done
			done
			echo "bench-peer: $name done" >&2
		done
	done
}

big_section() {
	for s in $BIG_SHAPES; do
		for ty in $BIG_TYPES; do
			local m name
			m=$(model "$s" "$ty")
			name=$s-$ty
			for r in $(seq "$ROUNDS"); do
				for t in $BIG_THREADS; do
					isagi_bench "$m" "$t" 64 32 | rec big "$name" isagi "$t" 64 32
					"$LLAMA_BIN/llama-bench" -m "$m" -t "$t" -p 64 -n 32 -r 1 -o jsonl 2>/dev/null |
						rec big "$name" llama.cpp "$t" 64 32
				done
			done
			echo "bench-peer: $name done" >&2
			[ -n "${KEEP_BIG:-}" ] || rm -f "$m" # 2–9 GB each
		done
	done
}

depth_section() {
	local m t=$DEPTH_THREADS
	m=$(model "${DEPTH_MODEL%-*}" "${DEPTH_MODEL##*-}")
	for r in $(seq "$ROUNDS"); do
		for d in $DEPTHS; do
			for kt in $KV_TYPES; do
				isagi_bench "$m" "$t" "$d" "$DEPTH_N" --no-probe --kv-type "$kt" |
					rec depth "$DEPTH_MODEL" isagi "$t" "$d" "$DEPTH_N" "{\"kvt\": \"$kt\"}"
			done
			timeout 1800 "$LLAMA_BIN/llama-batched-bench" -m "$m" -t "$t" -c $((d + DEPTH_N)) -b 2048 -ub 512 \
				-npp "$d" -ntg "$DEPTH_N" -npl 1 --output-format jsonl 2>/dev/null |
				rec depth "$DEPTH_MODEL" batched "$t" "$d" "$DEPTH_N"
		done
	done
	echo "bench-peer: depths done" >&2
}

# A busy process for the whole section: one core is taken, so the second
# thread of a 2-thread decode shares it with a spinning loop.
contention_section() {
	local m
	m=$(model "${DEPTH_MODEL%-*}" "${DEPTH_MODEL##*-}")
	python3 -c 'while True: pass' &
	local busy=$!
	trap 'kill $busy 2>/dev/null' EXIT
	for r in $(seq "$ROUNDS"); do
		for t in 1 2; do
			isagi_bench "$m" "$t" 32 "$N" --no-probe | rec contention "$DEPTH_MODEL" isagi "$t" 32 "$N"
			if [ "$t" = 2 ]; then
				# The pool's choice of mode off: what 2 threads give without it.
				isagi_bench "$m" 2 32 "$N" --no-probe --pin-threads |
					rec contention "$DEPTH_MODEL" isagi 2 32 "$N" '{"pinned": true}'
			fi
			"$LLAMA_BIN/llama-bench" -m "$m" -t "$t" -p 0 -n "$N" -r 1 -o jsonl 2>/dev/null |
				rec contention "$DEPTH_MODEL" llama.cpp "$t" 0 "$N"
		done
	done
	kill $busy 2>/dev/null || true
	trap - EXIT
	echo "bench-peer: contention done" >&2
}

for sec in $SECTIONS; do
	case $sec in
	types) types_section ;;
	big) big_section ;;
	depth) depth_section ;;
	contention) contention_section ;;
	*) echo "bench-peer: unknown section $sec" >&2; exit 2 ;;
	esac
done

flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|f16c|avx512f|avx512bw|avx512vl|avx512_vnni|avx512_bf16|avx_vnni|amx_tile)$' | tr '\n' ' ')
# On a CPU with AMX, a native llama.cpp build puts the weights of its AMX
# types (Q4_0, Q4_1, Q8_0, Q4_K, Q5_K, Q6_K, IQ4_XS) in an AMX buffer and
# runs their prefill on the tile unit: the table must say so.
case " $flags " in *" amx_tile "*) flags="$flags(llama.cpp: AMX prefill for Q4_0/Q4_1/Q8_0/Q4_K/Q5_K/Q6_K/IQ4_XS)" ;; esac
python3 scripts/bench-peer-table.py "$raw" \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) threads; flags: $flags" \
	"isagi $isagi_version; $(cat "$LLAMA_BIN/../../VERSION" 2>/dev/null || echo "llama.cpp build $(python3 -c 'import json,sys; print(next((d["build"] for d in map(json.loads, open(sys.argv[1])) if "build" in d), "?"))' "$raw")")"
