# ISAGI — build, test and measure. `make test` is what CI runs (.ci/run).
GO       ?= go
# An execution count, not a duration: go1.26's fuzz coordinator can fail a
# duration run with a spurious "context deadline exceeded" (golang/go#75804).
FUZZTIME ?= 50000x
FUZZTIME_SLOW ?= 5000x
BIN      := bin/isagi
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: bench-grammar bench-serve bench-moe bench-ab bench-kv bench-remote all build test vet fmt-check unit fuzz e2e openai-client bench bench-kernels bench-peer clean ptx ptx-check device-check

all: build

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/isagi

# The full gate: formatting, vet, every test under the race detector (the
# statistical speculative-sampling test again without it, which it skips, and
# the chat fixture's docs tables, minutes under -race), and a
# short run of each fuzz target over its checked-in seed corpus and beyond.
test: fmt-check vet ptx-check unit fuzz e2e openai-client

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# Tests that need another project's program (ggml's rpc-server, through
# ISAGI_RPC_SERVER or PATH) skip without it; go test shows a passing
# package's skips only under -v, so each skip also writes one line to a
# file, printed after the run.
unit:
	@skips=$$(mktemp); ISAGI_TEST_SKIPS=$$skips $(GO) test -race -count=1 ./...; rc=$$?; \
	sort -u $$skips; rm -f $$skips; exit $$rc
	$(GO) test -count=1 -run '^TestSpecSamplingMatchesVerifier$$' ./engine/generate
	$(GO) test -count=1 -run '^(TestDocsChatTables|TestAgree)$$' ./internal/testkit/chatfixture
	$(GO) test -count=1 ./internal/testkit/kvfixture

fuzz:
	$(GO) test ./engine/gguf -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/tensor -run '^$$' -fuzz '^FuzzMXFP4$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/tensor -run '^$$' -fuzz '^FuzzIQ1$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/tensor -run '^$$' -fuzz '^FuzzIQ2$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/tensor -run '^$$' -fuzz '^FuzzIQ3$$' -fuzztime $(FUZZTIME)
	# Each execution writes, loads and runs a model file: a tenth of the executions.
	$(GO) test ./engine/model -run '^$$' -fuzz '^FuzzLoadMoE$$' -fuzztime $(FUZZTIME_SLOW)
	$(GO) test ./engine/tokenizer -run '^$$' -fuzz '^FuzzRoundTrip$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/chat -run '^$$' -fuzz '^FuzzTemplate$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/chat -run '^$$' -fuzz '^FuzzToolReader$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/grammar -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/grammar -run '^$$' -fuzz '^FuzzFromJSONSchema$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/grammar -run '^$$' -fuzz '^FuzzMatch$$' -fuzztime $(FUZZTIME_SLOW)
	$(GO) test ./engine/steer -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./miku -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./miku -run '^$$' -fuzz '^FuzzDecodeFramed$$' -fuzztime $(FUZZTIME)
	$(GO) test ./session -run '^$$' -fuzz '^FuzzTreeSection$$' -fuzztime $(FUZZTIME)
	# A cache that decodes is verified against the weights (one block's products, ~3 ms): a tenth of the executions.
	$(GO) test ./engine/grc -run '^$$' -fuzz '^FuzzFromCache$$' -fuzztime $(FUZZTIME_SLOW)
	$(GO) test ./cog -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./geometry -run '^$$' -fuzz '^FuzzParseProfile$$' -fuzztime $(FUZZTIME)
	$(GO) test ./geometry/evaluate -run '^$$' -fuzz '^FuzzReadAugmentItems$$' -fuzztime $(FUZZTIME)
	$(GO) test ./prompts -run '^$$' -fuzz '^FuzzParseHeldoutLines$$' -fuzztime $(FUZZTIME)
	$(GO) test ./serve -run '^$$' -fuzz '^FuzzDecodeRequest$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/backend/remote -run '^$$' -fuzz '^FuzzHandshake$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine/kvpress -run '^$$' -fuzz '^FuzzChoose$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/kvtask -run '^$$' -fuzz '^FuzzReadCases$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/termtext -run '^$$' -fuzz '^FuzzClean$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/termtext -run '^$$' -fuzz '^FuzzFrame$$' -fuzztime $(FUZZTIME)
	# Each execution renders a chat pane (lipgloss, glamour): a tenth of the executions.
	$(GO) test ./tui -run '^$$' -fuzz '^FuzzChatRender$$' -fuzztime $(FUZZTIME_SLOW)

# The CUDA kernels (engine/backend/cuda/kernels/*.cu) as PTX for compute_80, which the
# driver JIT-compiles on Ampere, Hopper and later. The PTX is committed and
# embedded, so building Go never needs nvcc; run this after editing a .cu.
# It needs nvcc 11.8, the version the committed PTX was made with (Debian
# bookworm's nvidia-cuda-toolkit: scripts/cuda-toolkit.sh installs it).
NVCC      ?= nvcc
NVCCFLAGS := --gpu-architecture=compute_80 -ptx -O3
KERNELS   := $(wildcard engine/backend/cuda/kernels/*.cu)

ptx: $(KERNELS:.cu=.ptx.gz)

# gzip -n: no name or time in the header, so the same PTX gives the same
# bytes (scripts/ptx-check.sh compares the text, not the bytes). Compiled
# in a fresh temporary directory, as scripts/ptx-check.sh compiles it. Even
# so, nvcc 11.8's PTX for some sources depends on the size of the process
# environment (a variant of mmq.cuh gave four different PTX texts under
# environment paddings of 0–5,000 bytes, 2026-11-30): before committing a
# kernel change, check that `env PADX=$$(head -c 3000 /dev/zero | tr '\0'
# a) make ptx` gives the same bytes.
engine/backend/cuda/kernels/%.ptx.gz: engine/backend/cuda/kernels/%.cu engine/backend/cuda/kernels/quant.cuh engine/backend/cuda/kernels/mmq.cuh engine/backend/cuda/kernels/mmf.cuh engine/backend/cuda/kernels/ops.cuh engine/backend/cuda/kernels/iqtables.cuh engine/backend/cuda/kernels/attention.cuh
	t=$$(mktemp -d) && cp engine/backend/cuda/kernels/*.cu engine/backend/cuda/kernels/*.cuh $$t/ && \
		(cd $$t && $(NVCC) $(NVCCFLAGS) $*.cu -o $*.ptx) && gzip -n -9 -c $$t/$*.ptx >$@ && rm -rf $$t

# The committed PTX is what the source compiles to, and ptxas accepts it
# for sm_90 (the H100): installs the toolkit first when nvcc is missing.
ptx-check:
	scripts/ptx-check.sh

# The GPU's one command (docs/gpu.md): builds the test binaries here and
# writes scripts/device-check.sh's bundle to .device/ for the GPU machine.
device-check:
	scripts/device-bundle.sh

# The TUI in a real terminal (tmux): chat, cancel, quit, clean exit.
e2e: build
	scripts/e2e-tmux.sh $(BIN)

# isagi serve under a real client: the official openai npm package (pinned
# in scripts/openai-client) against a live `isagi serve --demo`: chat,
# streaming, logprobs, completions, embeddings, errors (docs/serve.md).
openai-client: build
	scripts/openai-client/run.sh $(BIN)

# Kernel throughput against the memory-bandwidth probe, measured in one run
# (compare ratios, not absolute figures: shared machines are noisy).
bench-kernels:
	$(GO) test ./engine/tensor -run '^$$' -bench 'MatVecVsTriad' -benchtime 15x

bench: bench-kernels

# The application layer's cost per decoded token: the same greedy reply
# through the engine alone (A) and through Session.Send (B), alternating
# in one run; B/A must stay >= 0.98 (docs/architecture.md).
# Mixtures of experts (docs/moe.md): the Qwen3-30B-A3B shape's decode and
# prefill against its dense twin of the same active bytes, alternated, then
# the peak RSS of loading and running it alone. MOE_LAYERS of its 48
# layers (8: a 3 GB file; 48: 17 GB).
MOE_LAYERS ?= 8
# What holding a reply to a JSON Schema costs in decode: ISAGI_BENCH_MODEL names
# the model (a 1B shape; docs/serve.md, "What it costs").
bench-grammar:
	$(GO) test ./session -run '^$$' -bench '^BenchmarkGrammarDecode$$' -benchtime 3x -timeout 30m

bench-moe:
	ISAGI_MOE_LAYERS=$(MOE_LAYERS) $(GO) test ./engine/model -run '^$$' -bench '^BenchmarkMoE$$' -benchtime 10x -timeout 60m
	ISAGI_MOE_LAYERS=$(MOE_LAYERS) $(GO) test ./engine/model -run '^$$' -bench '^BenchmarkMoERSS$$' -benchtime 1x -timeout 60m

bench-ab:
	$(GO) test ./session -run '^$$' -bench '^BenchmarkAB$$' -benchtime 20x

# isagi against native llama.cpp on the same synthetic GGUFs, both sides in
# one run (docs/performance.md). Needs LLAMA_BIN: the bin folder of your own
# native llama.cpp build (this repository builds no other project's code).
bench-peer:
	scripts/bench-peer.sh

# isagi serve against native llama-server: a concurrency sweep (1–16
# clients, streamed completions) on the same synthetic GGUFs, the servers
# taking turns (docs/serve.md). Needs LLAMA_BIN: the bin folder of your own
# native llama.cpp build with llama-server and llama-quantize.
bench-serve:
	scripts/serve-peer.sh

# Decode and prefill through one and two loopback rpc-servers against the
# local CPU backend, alternated in one run (docs/remote.md). Needs
# ISAGI_RPC_SERVER (or rpc-server on PATH): your own build of ggml's.
REMOTE_MODELS ?= /tmp/isagi-bench-remote
bench-remote:
	@[ -n "$$ISAGI_RPC_SERVER" ] || command -v rpc-server >/dev/null || \
		{ echo "bench-remote: no rpc-server: set ISAGI_RPC_SERVER to your own build of ggml's rpc-server (docs/remote.md)" >&2; exit 2; }
	mkdir -p $(REMOTE_MODELS)
	for s in $${ISAGI_REMOTE_SHAPES:-smollm2-135m llama-1b}; do for t in $${ISAGI_REMOTE_TYPES:-Q8_0 Q4_0}; do \
		[ -f $(REMOTE_MODELS)/$$s-$$t.gguf ] || $(GO) run ./engine/internal/synth/synthgguf -random $$s $$t $(REMOTE_MODELS)/$$s-$$t.gguf || exit 1; done; done
	ISAGI_REMOTE_SPEED=1 ISAGI_REMOTE_MODELS=$(REMOTE_MODELS) $(GO) test ./engine/backend/remote -run '^(TestSpeed|TestPrefillPipeline)$$' -count=1 -v -timeout 60m | grep -v '^=== \|^--- \|^    '

clean:
	rm -rf bin

# llama.cpp's reference outputs for internal/testkit/archgen's synthetic gemma3/phi3
# models: regenerate the files into a temporary directory and rewrite
# engine/model/testdata/archs2/golden.json (see the README there). Not part
# of `make test`: it needs Node 20 and the npm registry for the pinned
# @fugood/llama.node.
.PHONY: ref-archs
ref-archs:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(GO) run ./internal/testkit/archgen/gen -out "$$tmp" -ablations && \
	(cd scripts/llamacpp-ref && npm ci --no-audit --no-fund --ignore-scripts) && \
	node scripts/llamacpp-ref/ref.mjs golden "$$tmp" engine/model/testdata/archs2/golden.json

# The mixture-of-experts fixtures (qwen3moe, Mixtral as llama, gpt-oss with
# MXFP4 experts) and their llama.cpp goldens: engine/model/testdata/moe.
.PHONY: ref-moe
ref-moe:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(GO) run ./internal/testkit/archgen/gen -out "$$tmp" -set moe -ablations && \
	(cd scripts/llamacpp-ref && npm ci --no-audit --no-fund --ignore-scripts) && \
	node scripts/llamacpp-ref/ref.mjs golden "$$tmp" engine/model/testdata/moe/golden.json

# KV eviction's full table (docs/kv.md): every scorer × keep share × task ×
# context length on the retrieval fixture, perplexity under eviction on the
# kjv model, and decode speed at the longest context. Tens of minutes on
# two cores; make test runs a small part of it (internal/testkit/kvfixture).
KJV_TEXT ?= ../shared/fixtures/kjv/heldout.txt
bench-kv: build
	$(BIN) eval kv --model testdata/models/retrieval.gguf --haystack $(KJV_TEXT) --cases-per 10 --speed
	$(BIN) eval kv --model ../shared/fixtures/kjv/kjv-f32.gguf --ppl $(KJV_TEXT) --ppl-window 256 --recent 16
