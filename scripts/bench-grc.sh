#!/usr/bin/env bash
# Compression II's tables (docs/grc.md): every mechanism off and on in one
# run of `isagi ppl` (perplexity) and `isagi bench` (speed, weights and KV
# bytes per position), as markdown on stdout; raw output in $OUT.
#
#   scripts/bench-grc.sh            # ppl on kjv and the chat fixture, bench on two shapes
#   PART=ppl scripts/bench-grc.sh   # only the perplexities (deterministic)
#
# Knobs: PART (all|ppl|bench), PPL_MODELS ("kjv chat"), MECH (the mechanism flags, default every
# one: --gauge --sink-channels 8 --sink-bypass --kv-proj), SLOTS ("qkv
# qkv,o,ffn"), BENCH_SLOTS (qkv,o,ffn), SHAPES for bench ("smollm2-135m llama-1b", synthetic Q8_0
# files written by engine/internal/synth), THREADS, OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
FIX=${FIXTURES:-../shared/fixtures}
OUT=${OUT:-/tmp/isagi-bench-grc}
PART=${PART:-all}
PPL_MODELS=${PPL_MODELS:-kjv chat}
MECH=${MECH:---gauge --sink-channels 8 --sink-bypass --kv-proj}
SLOTS=${SLOTS:-qkv qkv,o,ffn}
SHAPES=${SHAPES:-smollm2-135m llama-1b}
BENCH_SLOTS=${BENCH_SLOTS:-qkv,o,ffn}
mkdir -p "$OUT"
go build -o "$OUT/isagi" ./cmd/isagi
# A data directory of its own, so every compression is built here, not
# read from the user's cache.
export XDG_DATA_HOME="$OUT/data" XDG_CONFIG_HOME="$OUT/config"
thr=()
[ -n "${THREADS:-}" ] && thr=(--threads "$THREADS")

# The chat fixture's held-out benign prompts with their answers, in its
# chat template (ChatML), scored with its control tokens (--parse-special).
python3 - scripts/fixtures/chat/heldout/benign.jsonl >"$OUT/chat-heldout.txt" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "answer" in r:
        print(f"<|im_start|>user\n{r['prompt']}<|im_end|>\n<|im_start|>assistant\n{r['answer']}<|im_end|>")
PY

ppl() { # label model text ctx dim [ppl flags]
	local label=$1 model=$2 text=$3 ctx=$4 d=$5
	shift 5
	echo "### $label (d = $d)"
	echo
	for slots in $SLOTS; do
		for k in $((d / 4)) $((d / 2)) $((3 * d / 4)); do
			# shellcheck disable=SC2086
			"$OUT/isagi" ppl --model "$model" --file "$text" --ctx "$ctx" --rank "$k" --slots "$slots" $MECH "${thr[@]}" "$@" \
				>"$OUT/ppl-$label-$slots-$k.txt" 2>"$OUT/ppl-$label-$slots-$k.log"
			printf '| %s | %d |' "$slots" "$k"
			grep -v '^ppl=\|^dense ' "$OUT/ppl-$label-$slots-$k.txt" | awk '{printf " %s |", $NF}' | sed 's/ppl=//g'
			echo
		done
	done
	echo
}

if [ "$PART" != bench ]; then
	echo "Perplexity: variants $(echo "$MECH") (columns: the rank alone ("off" in the older tables), then each alone, then all)"
	echo
	if [[ " $PPL_MODELS " == *" kjv "* ]]; then
		base=$("$OUT/isagi" ppl --model "$FIX/kjv/kjv-q8_0.gguf" --file "$FIX/kjv/heldout.txt" --ctx 256 2>/dev/null)
		echo "kjv uncompressed: $base"
		ppl kjv "$FIX/kjv/kjv-q8_0.gguf" "$FIX/kjv/heldout.txt" 256 256
	fi
	if [[ " $PPL_MODELS " == *" chat "* ]]; then
		base=$("$OUT/isagi" ppl --model testdata/models/chat-q8_0.gguf --file "$OUT/chat-heldout.txt" --ctx 256 --parse-special 2>/dev/null)
		echo "chat uncompressed: $base"
		ppl chat testdata/models/chat-q8_0.gguf "$OUT/chat-heldout.txt" 256 256 --parse-special
	fi
fi

if [ "$PART" != ppl ]; then
	for s in $SHAPES; do
		f="$OUT/$s-Q8_0.gguf"
		[ -f "$f" ] || go run ./engine/internal/synth/synthgguf -random "$s" Q8_0 "$f"
		d=$("$OUT/isagi" inspect "$f" | awk '/embedding_length/ {print $NF}')
		echo "### bench $s Q8_0 (d = $d), rank $((d / 2)), slots $BENCH_SLOTS"
		# shellcheck disable=SC2086
		"$OUT/isagi" bench --model "$f" -p 128 -n 64 --rank $((d / 2)) --slots "$BENCH_SLOTS" $MECH "${thr[@]}" | tee "$OUT/bench-$s.txt"
		echo
	done
fi
