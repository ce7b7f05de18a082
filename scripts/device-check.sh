#!/usr/bin/env bash
# The one command to run on a GPU machine (docs/gpu.md). It needs no Go:
# scripts/device-bundle.sh built the binaries and gathered the fixtures into
# .device/ on a CPU machine. It writes JSON records and summary.txt to $OUT
# and finishes in a few minutes on an H100:
#   - every weight type's products and the other operations against the CPU;
#   - greedy conformance with the CPU engine on the fixture models;
#   - 1,000 generations in one process, device memory back where it was;
#   - compute-sanitizer memcheck on short decodes;
#   - decode and prefill speed, % of the copy-bandwidth roofline and tokens
#     per joule on synthetic SmolLM2-135M, 1B and 8B shapes, and one MoE
#     layer of the Qwen3-30B-A3B and gpt-oss-20b shapes (set a only);
#   - decode at GRC ranks k/d = 0.25…1 on the 8B shape against dense;
#   - issue 55's (CUDA III) goals on synthetic Q4_K_M 1B and 8B shapes, f32
#     and f16 KV caches: prefill of 512 tokens, decode at depth 8K against
#     depth 0, 8 sequences batched against one, memcheck on a prefill of
#     1,100 tokens and decode past it, no host allocation in a decode step;
#     a summary line per goal (set a);
#   - issue 54's (Serve II) GPU goals through isagi serve's own code
#     (serve/servegpu's test binary): batched replies against each alone
#     on kjv and qwen2 Q4_K_M, and on the 8B Q4_K_M shape aggregate decode
#     at 1, 4, 8 and 32 streams and TTFT at 1 and 8; a summary line per
#     goal (set a);
#   - where the time goes: Nsight Compute's per-kernel durations over 4
#     decode steps, 4 batched steps of 8 sequences and a prompt step of
#     256 tokens on the 8B shape (set a, where ncu is installed;
#     ISAGI_DEVICE_PROFILE=0 leaves it out).
# ISAGI_DEVICE_ONLY=cuda3 (or a bundle of set cuda3) runs conformance, the
# memcheck steps, issue 55's steps and issue 54's alone (about 6 minutes),
# when a session's device time is short.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/isagi-device}
mkdir -p "$OUT"
B=.device
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
for f in "$B"/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
chmod +x "$B"/cuda.test "$B"/servegpu.test "$B"/synthgguf "$B"/isagi 2>/dev/null
ln -sf "$PWD/demo/kjv-q8_0.gguf" "$B/fixtures/kjv/kjv-q8_0.gguf"
set_=$(cat "$B/set" 2>/dev/null || echo a)
only=${ISAGI_DEVICE_ONLY:-}
# The cuda3 bundle is set a's, run for issue 55's steps alone.
if [ "$set_" = cuda3 ]; then
	set_=a only=cuda3
fi
full() { [ -z "$only" ]; }
nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,clocks.max.sm,clocks.max.mem --format=csv >"$OUT/gpu.csv" 2>&1
say "== $(tail -1 "$OUT/gpu.csv") · fixture set $set_${only:+ (only $only)} · $(date -u +%FT%TZ)"
export ISAGI_REQUIRE_GPU=1 ISAGI_FIXTURES="$PWD/$B/fixtures" ISAGI_DEVICE_OUT="$OUT"
status=0
# ISAGI_DEVICE_DEADLINE (seconds from the start) caps every step's
# timeout, so that a run cut short by the device tool's limit still writes
# its summary; steps past it are skipped and say so.
deadline=${ISAGI_DEVICE_DEADLINE:-100000}
step() { # name, timeout, command…
	local name=$1 t=$2
	shift 2
	local left=$((deadline - SECONDS))
	if [ $left -lt 15 ]; then
		say "$name: skipped, past the run's deadline (ISAGI_DEVICE_DEADLINE=$deadline)"
		return
	fi
	[ "$t" -le $left ] || t=$left
	local start=$SECONDS
	timeout "$t" "$@" >"$OUT/$name.log" 2>&1
	local rc=$?
	say "$name: rc=$rc in $((SECONDS - start)) s"
	[ $rc = 0 ] || { status=1; grep -E -- '--- FAIL|FAIL|Error|error|panic' "$OUT/$name.log" | head -20 | tee -a "$S"; }
}
gen=/tmp/isagi-synth
mkdir -p $gen
# The synthetic models of the speed steps (synthgguf -random), made in the
# background from the start while the correctness steps run; each is
# written under a temporary name and renamed, so a file that exists is
# whole. Issue 55's Q4_K_M 1B and 8B shapes (the speed table's files) and
# the same shapes cut to two layers for the sanitizer and the allocation
# test; in the full run, the speed table's other shapes.
shapes=
if [ "$set_" = a ]; then
	shapes="llama-8b:q4_k_m: llama-1b:q4_k_m: llama-1b:q4_k_m:2 llama-8b:q4_k_m:2"
	full && shapes="$shapes ${ISAGI_DEVICE_SHAPES:-smollm2-135m:f16 smollm2-135m:q8_0 smollm2-135m:q4_k_m llama-1b:f16 llama-1b:q8_0 llama-8b:f16 llama-8b:q8_0}"
fi
synthfile() { # shape:type[:layers] → path
	local sh=${1%%:*} r=${1#*:}
	local ty=${r%%:*} l=
	[ "$r" = "${r#*:}" ] || l=${r#*:}
	echo "$gen/$sh${l:+-${l}l}-$ty.gguf"
}
(
	for spec in $shapes; do
		f=$(synthfile "$spec") sh=${spec%%:*} r=${spec#*:}
		ty=${r%%:*} l=
		[ "$r" = "${r#*:}" ] || l=${r#*:}
		[ -e "$f" ] || { "$B"/synthgguf -random ${l:+-layers $l} "$sh" "$ty" "$f.part" && mv "$f.part" "$f"; } || echo "synthgguf $spec failed"
	done
) >"$OUT/synth.log" 2>&1 &
synth_pid=$!
if [ "$set_" = a ] && full; then
	step kernels 90 "$B"/cuda.test -test.run '^TestGPUBackend$' -test.v
fi
[ "$set_" = cli ] || step conformance 120 "$B"/cuda.test -test.run '^TestGPUConformance$' -test.v
# Issue 55's kernels: the tensor-core products (mmq_ for the integer
# types, mmf_ for F16/BF16) against hostq's emulation of their fragment
# layouts bit for bit and against the CPU; the attention (split-K decode,
# tiled prefill) against the CPU at depths 1…8K with f32 and f16 caches.
if [ "$set_" = a ]; then
	step products 180 "$B"/cuda.test -test.run '^(TestGPUMMQ|TestGPUMMF)$' -test.v
	step attention 120 "$B"/cuda.test -test.run '^TestGPUAttentionDepths$' -test.v
fi
if full && [ "$set_" != cli ]; then
	# Snipe and Safe OGD's device form (affine_rows) against the CPU backend.
	step affine 60 "$B"/cuda.test -test.run '^TestGPUAffineForward$' -test.v
	step batcher 90 "$B"/cuda.test -test.run '^TestGPUBatcher$' -test.v
fi
# The steps below read the synthetic models.
wait $synth_pid
grep . "$OUT/synth.log" | tee -a "$S"
if [ "$set_" = a ]; then
	c3=()
	for spec in llama-1b:q4_k_m: llama-8b:q4_k_m: llama-1b:q4_k_m:2 llama-8b:q4_k_m:2; do
		f=$(synthfile "$spec")
		[ -e "$f" ] || f=
		c3+=("$f")
	done
	export ISAGI_CUDA3_1B="${c3[0]}" ISAGI_CUDA3_8B="${c3[1]}" ISAGI_CUDA3_LONG_MODELS="${c3[2]}${c3[3]:+,${c3[3]}}"
	ISAGI_CUDA3_LONG_MODELS=${ISAGI_CUDA3_LONG_MODELS#,}
	# Issue 54 (Serve II), serve/servegpu: isagi serve's own path
	# (serve.Server on loopback in the test binary) on the GPU. Replies of
	# requests batched against each alone, token for token, on kjv and
	# qwen2 Q4_K_M; then the 8B Q4_K_M above at 1, 4, 8 and 32 streams at
	# once (64-token prompts, 32 greedy decode steps): aggregate decode
	# against one stream, TTFT. Three rounds in the focused mode, five in
	# the full one.
	step serve2-equal 60 "$B"/servegpu.test -test.run '^TestGPUServe2Equal$' -test.v
	if [ -n "${c3[1]}" ]; then
		step serve2 "$(full && echo 150 || echo 90)" env ISAGI_SERVE2_8B="${c3[1]}" ISAGI_SERVE2_ROUNDS="${ISAGI_SERVE2_ROUNDS:-$(full && echo 5 || echo 3)}" \
			"$B"/servegpu.test -test.run '^$' -test.bench '^BenchmarkGPUServe2$' -test.benchtime 1x
	fi
	# Issue 55 (CUDA III), engine/backend/cuda/gpu_cuda3_test.go: its goals
	# on the Q4_K_M 1B and 8B shapes, f32 and f16 caches (an f16 cache the
	# backend refuses is recorded as refused). Five alternated rounds a
	# figure (ISAGI_CUDA3_ROUNDS); each step loads its models once.
	step cuda3-prefill 120 "$B"/cuda.test -test.run '^$' -test.bench '^BenchmarkGPUCUDA3Prefill$' -test.benchtime 1x
	step cuda3-depth 150 "$B"/cuda.test -test.run '^$' -test.bench '^BenchmarkGPUCUDA3Depth$' -test.benchtime 1x
	step cuda3-batch 120 "$B"/cuda.test -test.run '^$' -test.bench '^BenchmarkGPUCUDA3Batch$' -test.benchtime 1x
	if full; then
		models=()
		for spec in $shapes; do
			case $spec in *:*:?*) continue ;; esac
			f=$(synthfile "$spec")
			[ -e "$f" ] && models+=("$f")
		done
		step bench 200 env ISAGI_BENCH_MODELS="$(IFS=,; echo "${models[*]}")" "$B"/cuda.test -test.run '^$' -test.bench '^BenchmarkGPU$' -test.benchtime 8x
	fi
	# Where the time goes: Nsight Compute's per-kernel durations over one
	# phase of the 8B shape's work (BenchmarkGPUProfile marks the region:
	# 4 decode steps, 4 batched steps of 8 sequences, a prompt step of
	# 256 tokens), each kernel timed alone (ncu serialises them); the
	# summary lists the costliest kernels per phase.
	if [ -n "${c3[1]}" ] && command -v ncu >/dev/null && [ "${ISAGI_DEVICE_PROFILE:-1}" = 1 ]; then
		for phase in decode batch prefill; do
			step "profile-$phase" 120 env ISAGI_PROFILE_PHASE=$phase ncu --profile-from-start off --clock-control none \
				--cache-control none --metrics gpu__time_duration.sum --print-summary per-kernel --csv \
				--log-file "$OUT/ncu-$phase.csv" "$B"/cuda.test -test.run '^$' -test.bench '^BenchmarkGPUProfile$' -test.benchtime 1x
		done
	fi
	step cuda3-allocs 60 "$B"/cuda.test -test.run '^TestGPUDecodeAllocs$' -test.v
	full && step leaks 90 "$B"/cuda.test -test.run '^TestGPULeaks$' -test.v
	if command -v compute-sanitizer >/dev/null; then
		step memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$B"/cuda.test -test.run '^TestGPUMemcheckDecode$' -test.v
		grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tee -a "$S"
	else
		say "memcheck: compute-sanitizer is not installed here"
	fi
	step products-bench 120 "$B"/cuda.test -test.run '^$' -test.bench '^BenchmarkGPUMMQ$' -test.benchtime 1x
	if full; then
		# The MoE layer shapes (Qwen3-30B-A3B in Q4_K, gpt-oss-20b in MXFP4):
		# one layer's route, expert products and sum, decode and a batch of 64.
		step experts 120 "$B"/cuda.test -test.run '^$' -test.bench '^BenchmarkGPUExperts$' -test.benchtime 50x
		# Issue 58: decode at GRC ranks k/d = 0.25…1 on the 8B shape, each
		# between two dense timings (the seeds' compressed "super-baseline" and
		# their k* = L2 MB × 42.7). Q/K/V only unless ISAGI_DEVICE_RANK_SLOTS=all.
		if [ -n "${c3[1]}" ]; then
			step ranks 200 env ISAGI_BENCH_RANK_MODEL="${c3[1]}" ISAGI_BENCH_RANK_SLOTS="${ISAGI_DEVICE_RANK_SLOTS:-qkv}" "$B"/cuda.test -test.run '^$' -test.bench '^BenchmarkGPURanks$' -test.benchtime 1x
		fi
	fi
	# The longest and least certain step last.
	if command -v compute-sanitizer >/dev/null; then
		step memcheck-long 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$B"/cuda.test -test.run '^TestGPUMemcheckLong$' -test.v
		grep -E 'ERROR SUMMARY' "$OUT/memcheck-long.log" | tee -a "$S"
	fi
fi
# Set cli (isagi alone: beside set a's fixtures it passes the transfer
# limit).
if [ -x "$B"/isagi ] && full; then
	# The command line end to end: the same greedy reply on the GPU and
	# on the CPU (sampled replies part where the two sides' small
	# logit differences cross a draw), and bench's report of the
	# backend.
	step cli 60 "$B"/isagi run --gpu --demo --prompt " The LORD is my shepherd" -n 48 --temp 0
	"$B"/isagi run --cpu --demo --prompt " The LORD is my shepherd" -n 48 --temp 0 >"$OUT/cli-cpu.log" 2>&1
	if cmp -s "$OUT/cli.log" "$OUT/cli-cpu.log"; then
		say "cli: isagi run --gpu and --cpu print the same 48 greedy tokens"
	else
		say "cli: isagi run --gpu and --cpu differ (greedy):"
		cat "$OUT/cli.log" "$OUT/cli-cpu.log" | tee -a "$S"
	fi
	step bench-cli 60 "$B"/isagi bench --demo --json -p 64 -n 64
	grep -E '"(backend|decode_tok_s|prefill_tok_s|tokens_per_joule|power_w)"' "$OUT/bench-cli.log" | tee -a "$S"
fi
python3 - "$OUT" <<'PY' | tee -a "$S"
import json, os, re, sys
out = sys.argv[1]
def rows(name):
    p = os.path.join(out, name)
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []
c = rows("conformance.jsonl")
if c:
    bad = [r for r in c if not r["ok"]]
    print(f"conformance: {len(c) - len(bad)}/{len(c)} models agree with the CPU")
    for r in c:
        tie = f", near-tie at step {r['near_tie_at']}" if r["near_tie_at"] >= 0 else ""
        print(f"  {r['model']:40s} {'ok ' if r['ok'] else 'BAD'} {r['greedy_steps_equal']:3d} greedy steps equal{tie}; first logits max |Δ| {r['first_logits_max_abs_diff']:.2e} of {r['first_logits_max_abs']:.2f} (tolerance {r.get('tolerance_relative', 0):g} of it)")
for r in rows("leaks.jsonl"):
    print(f"leaks: {r['generations']} generations in {r['seconds']:.1f} s, free memory {r['free_before']} → {r['free_after']} ({-r['leaked_bytes']:+d} bytes)")
for r in rows("launch.jsonl"):
    print(f"launch overhead: {r['backend_us']:.2f} µs an operation through the backend, {r['bare_launch_us']:.2f} µs a bare launch")
for r in rows("experts.jsonl"):
    gbs = f", {r['active_expert_gbs']:.0f} GB/s of the chosen experts" if "active_expert_gbs" in r else ""
    print(f"moe layer {r['shape']:30s} {r['rows']:3d} rows: {r['us_per_layer']:8.1f} µs{gbs}")
b = rows("bench.jsonl")
if b:
    print(f"speed (copy bandwidth {b[0]['copy_bandwidth_gbs']:.0f} GB/s read+write, on {b[0]['device']}):")
    for r in b:
        tj = f"{r['tokens_per_joule']:.2f} tok/J at {r['power_w']:.0f} W" if "tokens_per_joule" in r else "no NVML power"
        print(f"  {r['model']:22s} decode {r.get('decode_tok_s', 0):8.1f} tok/s ({r.get('decode_roofline_pct', 0):5.1f}% of roofline, {r['weight_bytes_per_token'] / 2**20:.0f} MiB/token) · prefill {r.get('prefill_tok_s', 0):8.1f} tok/s · {tj}")
k = rows("ranks.jsonl")
if k:
    print(f"rank sweep ({k[0]['model']}, {k[0]['slots']}; ratio to dense timed on either side):")
    for r in k:
        print(f"  k {r['k']:5d} (k/d {r['k_over_d']:.3f}): decode {r['decode_tok_s']:7.1f} tok/s, dense {r['dense_before_tok_s']:.1f}/{r['dense_after_tok_s']:.1f}, ratio {r['ratio']:.3f}, {r['roofline_pct']:5.1f}% of roofline")
# Issue 55's goals (gpu_cuda3_test.go): one line each, measured against
# the goal, per KV cache type; "met" names the types that meet it.
c3 = rows("cuda3.jsonl")
if c3 or os.path.exists(os.path.join(out, "cuda3-prefill.log")):
    def kinds(kind, **match):
        return [r for r in c3 if r["kind"] == kind and all(r.get(k) == v for k, v in match.items())]
    def refused(what, rs=None):
        # The refusals of the models rs measured (all when rs is None).
        names = None if rs is None else {r["model"] for r in rs}
        return [f"{r['kv']} refused" for r in kinds("refused", what=what) if names is None or r["model"] in names]
    met_n = 0
    def goal(name, parts, goal_text, met):
        global met_n
        verdict = "not measured" if not parts else (f"met ({', '.join(met)})" if met else "NOT MET")
        met_n += bool(met)
        print(f"  {name}: {'; '.join(parts) or '—'} · goal {goal_text} · {verdict}")
    print("issue 55 goals (median of alternated rounds; min…max):")
    for shape, label, g in (("8b", "8B Q4_K_M prefill, 512 tokens", "≥ 8,000 tok/s"), ("1b", "1B Q4_K_M prefill, 512 tokens", "≥ 30,000 tok/s")):
        rs = kinds("prefill", shape=shape)
        parts = [f"{r['kv']} {r['tok_s']['median']:.0f} tok/s ({r['tok_s']['min']:.0f}…{r['tok_s']['max']:.0f}), {r['tflops']:.1f} TFLOP/s, {r['roofline_pct']:.1f}% of roofline" for r in rs]
        goal(label, parts + refused("prefill", rs), g, [r["kv"] for r in rs if r["met"]])
    rs = kinds("depth")
    parts = [f"{r['kv']} {r['ratio']:.3f} ({r['deep_tok_s']['median']:.1f} tok/s at {r['depth']}, {r['deep_roofline_pct']:.1f}% of roofline; {r['depth0_tok_s']['median']:.1f} at 0, {r['depth0_roofline_pct']:.1f}%)" for r in rs]
    goal("1B Q4_K_M decode at depth 8K ÷ depth 0", parts + refused("depth", rs), "≥ 0.8", [r["kv"] for r in rs if r["met"]])
    rs = kinds("batch")
    parts = [f"{r['kv']} {r['ratio']:.2f}× ({r['aggregate_tok_s']['median']:.1f} tok/s for {r['sequences']}, {r['aggregate_roofline_pct']:.1f}% of roofline, mean batch {r['mean_batch']:.1f}; {r['one_tok_s']['median']:.1f} for one, {r['one_roofline_pct']:.1f}%)" for r in rs]
    goal("8B Q4_K_M decode, 8 sequences ÷ one", parts + refused("batch", rs), "≥ 5×", [r["kv"] for r in rs if r["met"]])
    if c:
        bad = [r["model"] for r in c if not r["ok"]]
        goal("conformance", [f"{len(c) - len(bad)}/{len(c)} models agree with the CPU" + (f" (not {', '.join(bad)})" if bad else "")], "unchanged: all agree", ["all"] if not bad else [])
    else:
        goal("conformance", [], "unchanged: all agree", [])
    parts, clean = [], []
    for step in ("memcheck", "memcheck-long"):
        p = os.path.join(out, step + ".log")
        m = re.findall(r"ERROR SUMMARY: (\d+) error", open(p, errors="replace").read()) if os.path.exists(p) else []
        if m:
            parts.append(f"{step} {m[-1]} errors")
            if m[-1] == "0":
                clean.append(step)
        elif os.path.exists(p):
            parts.append(f"{step} gave no ERROR SUMMARY")
    kvs = sorted({r["kv"] for r in kinds("memcheck_long")})
    if kvs:
        parts.append("long run on " + ", ".join(kvs) + " caches, " + ", ".join(sorted({f"depth {r['depth']}" for r in kinds("memcheck_long")})))
    parts += refused("memcheck_long")
    goal("compute-sanitizer memcheck", parts, "0 errors, prefill ≥ 256 and decode past 1K on f32 and f16", ["both"] if len(clean) == 2 and len(kvs) == 2 else [])
    rs = kinds("allocs")
    parts = [f"{r['model']} {r['kv']} at depth {r['depth']}: {r['allocs_per_step']:g}" for r in rs]
    goal("host allocations per decode step", parts + refused("allocs", rs), "0", sorted({r["kv"] for r in rs}) if rs and all(r["allocs_per_step"] == 0 for r in rs) else [])
    print(f"  {met_n} of 7 goals met")
# The profile (ncu-<phase>.csv): per phase, the kernels by their total
# time (invocations × mean), with the phase's kernel time.
import csv
for phase in ("decode", "batch", "prefill"):
    p = os.path.join(out, f"ncu-{phase}.csv")
    if not os.path.exists(p):
        continue
    lines = [l for l in open(p, errors="replace") if l.startswith('"')]
    ks = {}
    for r in csv.DictReader(lines):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        n, avg = int(r["Invocations"].replace(",", "")), float(r["Average"].replace(",", ""))
        k = ks.setdefault(r["Kernel Name"], [0, 0.0])
        k[0] += n
        k[1] += n * avg
    total = sum(v[1] for v in ks.values())
    if not total:
        print(f"profile {phase}: no kernels recorded")
        continue
    print(f"profile {phase}: {total / 1e3:.0f} µs of kernels; the costliest:")
    for name, (n, t) in sorted(ks.items(), key=lambda kv: -kv[1][1])[:8]:
        print(f"  {name:28s} {n:6d} calls {t / 1e3:9.1f} µs ({100 * t / total:4.1f}%), {t / n / 1e3:7.2f} µs each")
# Issue 54's GPU goals (serve/servegpu): isagi serve's path, one line
# each.
s2 = rows("serve2.jsonl")
if s2 or any(os.path.exists(os.path.join(out, f)) for f in ("serve2.log", "serve2-equal.log")):
    dec = {r["streams"]: r for r in s2 if r["kind"] == "decode"}
    one = dec.get(1)
    n54 = 0
    def goal54(name, parts, goal_text, met):
        global n54
        verdict = "not measured" if not parts else ("met" if met else "NOT MET")
        n54 += bool(parts and met)
        print(f"  {name}: {'; '.join(parts) or '—'} · goal {goal_text} · {verdict}")
    def streams(r):
        a = r["aggregate_tok_s"]
        return f"{a['median']:.1f} tok/s ({a['min']:.1f}…{a['max']:.1f}) for {r['streams']}, {r['roofline_pct']:.1f}% of roofline, mean batch {r['mean_batch']:.1f}, {r['steady_rounds']}/{r['rounds']} rounds steady"
    print("issue 54 goals (isagi serve on the GPU, " + (f"{one['model']} {one['kv']} cache, " if one else "") + "median of alternated rounds; min…max):")
    if one:
        print(f"  one stream: {streams(one)}; TTFT p50 {one['ttft_p50_ms']:.0f} ms")
    for n, g in ((4, "≥ 3×"), (32, "≥ 8×")):
        r = dec.get(n)
        parts = [f"{r['ratio']:.2f}× ({streams(r)}; TTFT p50 {r['ttft_p50_ms']:.0f} ms, p99 {r['ttft_p99_ms']:.0f})"] if r and one else []
        goal54(f"8B Q4_K_M aggregate decode, {n} streams ÷ one", parts, g, r and r.get("met"))
    if 8 in dec and one:
        print(f"  (8 streams: {dec[8]['ratio']:.2f}×, {streams(dec[8])})")
    t = [r for r in s2 if r["kind"] == "ttft"]
    parts = [f"{r['ratio']:.2f} (p99 {r['p99_8_ms']:.0f} ms over {r['samples_8']} streams at 8, p50 {r['p50_8_ms']:.0f}; {r['one_ms']:.1f} ms alone)" for r in t]
    goal54("TTFT p99 at 8 streams ÷ the 1-stream TTFT", parts, "≤ 2×", t and all(r["met"] for r in t))
    e = [r for r in s2 if r["kind"] == "equal"]
    parts = []
    for r in e:
        d = r["differ"]
        first = ""
        if d:
            x = d[0]
            m = f", alone's top-2 margin {x['alone_margin']:.3g}" if "alone_margin" in x else ""
            first = f", first at request {x['request']} token {x['at']}{m}"
        parts.append(f"{r['model']} {r['equal']}/{r['replies']} equal ({r['batched_steps']} batched steps, mean batch {r['mean_batch']:.1f}{first})")
    goal54("batched replies = each alone, temperature 0", parts, "every reply, token for token", e and all(r["met"] for r in e))
    print(f"  {n54} of 4 goals met")
PY
say "device-check: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
