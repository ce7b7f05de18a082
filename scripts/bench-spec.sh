#!/usr/bin/env bash
# Speculative decoding against plain decoding (docs/speculative.md): for
# each model and drafter, `isagi bench --draft … --json` decodes the same
# held-out prompts plainly and speculatively in turn (one process, one
# run), and this prints the acceptance rate α, tokens per verifier step and
# the speed ratio as a markdown table; raw JSON lines go to $OUT/raw.jsonl.
#
#   scripts/bench-spec.sh                       # kjv f32 and q8_0
#   MODELS="/tmp/smollm2-135m-Q8_0.gguf" TEXT= scripts/bench-spec.sh
#
# Knobs: MODELS (GGUF files; default the kjv fixture's f32 and q8_0),
# DRAFTS ("rank:64,all rank:128,all rank:192,all ngram"), GAMMAS
# ("2 3 4 5 6 7 8 0"; 0 = chosen live), TEXT (prompt file; default the kjv
# fixture's held-out verses; empty = random prompts, for random-weight
# models whose α means nothing), ONLINE (1 adds each rank drafter again with
# --online-basis at γ ONLINE_GAMMA, within its default share of the time and
# learning before every draft), PROMPTS (16), P (24) and N (64),
# THREADS (default: all cores), OUT.
#
# The flow-map drafter (docs/speculative.md "The flow-map drafter"): a
# DRAFTS word "flow" (or "flow,OPTIONS", e.g. "flow,ngram") runs
# --draft flow:CALIB[,OPTIONS], where CALIB is lines FLOW_FROM… of TEXT
# (default 101…: the evaluation prompts are the first PROMPTS lines, so
# the map never sees them) or FLOW_CALIB. CHAT=1 adds the chat fixture
# (testdata/models/chat-q8_0.gguf; its chat template needs token-level
# prompts, so it runs engine/generate's TestFlowBench: n-gram and flow map
# at γ 2, 4 and live, calibrated on the even lines of
# scripts/fixtures/chat/heldout/*.jsonl, evaluated on odd ones).
set -euo pipefail
cd "$(dirname "$0")/.."
FIX=${FIXTURES:-../shared/fixtures}
OUT=${OUT:-/tmp/isagi-bench-spec}
MODELS=${MODELS:-$FIX/kjv/kjv-f32.gguf $FIX/kjv/kjv-q8_0.gguf}
DRAFTS=${DRAFTS:-rank:64,all rank:128,all rank:192,all ngram}
GAMMAS=${GAMMAS:-2 3 4 5 6 7 8 0}
TEXT=${TEXT-$FIX/kjv/heldout.txt}
ONLINE=${ONLINE:-1}
ONLINE_GAMMA=${ONLINE_GAMMA:-4}
FLOW_FROM=${FLOW_FROM:-101}
CHAT=${CHAT:-0}
PROMPTS=${PROMPTS:-16}
P=${P:-24}
N=${N:-64}
mkdir -p "$OUT"
go build -o "$OUT/isagi" ./cmd/isagi
if [ -z "${FLOW_CALIB:-}" ] && [ -n "$TEXT" ]; then
	FLOW_CALIB=$OUT/flow-calib.txt
	tail -n +"$FLOW_FROM" "$TEXT" >"$FLOW_CALIB"
fi
: >"$OUT/raw.jsonl"
args=(-p "$P" -n "$N" --prompts "$PROMPTS" --json)
[ -n "$TEXT" ] && args+=(--prompt-file "$TEXT")
[ -n "${THREADS:-}" ] && args+=(--threads "$THREADS")
run() { # model label flags…
	local m=$1 label=$2
	shift 2
	"$OUT/isagi" bench --model "$m" "${args[@]}" "$@" 2>>"$OUT/log" |
		jq -c --arg file "$(basename "$m")" --arg lab "$label" '. + {file: $file, run: $lab}' >>"$OUT/raw.jsonl"
}
for m in $MODELS; do
	for d in $DRAFTS; do
		flag=$d
		case $d in
		flow) flag=flow:$FLOW_CALIB ;;
		flow,*) flag=flow:$FLOW_CALIB,${d#flow,} ;;
		esac
		for g in $GAMMAS; do
			run "$m" "$d" --draft "$flag" --draft-n "$g"
		done
		if [ "$ONLINE" = 1 ] && [ "${d#rank:}" != "$d" ]; then
			run "$m" "$d online" --draft "$d" --draft-n "$ONLINE_GAMMA" --online-basis
			# Learning before every draft, whatever it costs: what the
			# online basis does to α, apart from its price.
			run "$m" "$d online, every step" --draft "$d" --draft-n "$ONLINE_GAMMA" --online-basis --online-share 1
		fi
	done
done
echo "| model | drafter | γ | α (first → last half) | tokens/step | verify / draft cost | break-even α | plain tok/s | spec tok/s | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|"
jq -r '"| \(.file) | \(.run) | \(if .draft_n == 0 then "live (last \(.last_gamma)\(if .off then ", off" else "" end))" else .draft_n end) | \(.alpha*1000|round/1000) (\(.alpha_first_half*1000|round/1000) → \(.alpha_last_half*1000|round/1000)) | \(.tokens_per_verifier_step*100|round/100) | \(.verify_cost_steps*100|round/100) / \(.draft_cost_steps*100|round/100) | \(.break_even_alpha*100|round/100) | \(.plain_decode_tok_s|round) | \(.spec_decode_tok_s|round) | **\(.speed_ratio*100|round/100)** |"' "$OUT/raw.jsonl"
if [ "$CHAT" = 1 ]; then
	echo
	echo "chat-q8_0.gguf (engine/generate TestFlowBench):"
	ISAGI_FLOW_BENCH=chat go test ./engine/generate -run 'TestFlowBench$' -count=1 -v 2>>"$OUT/log" | grep -E '^\||calibration'
fi
