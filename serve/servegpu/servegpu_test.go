package servegpu

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/serve"
	"github.com/isagi-lab/isagi/session"
)

// Issue 54's (Serve II) measurements on the device, through `isagi
// serve`'s own code: a serve.Server over a session on this backend,
// answering streamed completions on an httptest server on loopback, in
// this process. Not model.Batcher alone (BenchmarkGPUCUDA3Batch measures
// that): what a client of the server waits for includes the server's
// scheduling around the batcher — the slots, the turn on the host side
// (one request at a time applies its settings, samples its token and
// writes its chunk while the batch computes the others), the pooled
// conversations, chunked prefill beside decoding streams (--chunk) — and
// TTFT at 8 streams is mostly that scheduling. The cuda package's tests
// cannot import serve (engine's tests stay below the application and
// the interface: internal/layers), so they live here, above both.
//
//	ISAGI_SERVE2_8B       the llama-8b Q4_K_M file (the device check
//	                      names ISAGI_CUDA3_8B's)
//	ISAGI_SERVE2_STREAMS  the concurrent stream counts (1,4,8,32); 1 is
//	                      always measured, the ratios' denominator
//	ISAGI_SERVE2_ROUNDS   timed rounds (5)
//	ISAGI_SERVE2_KV       the KV cache type (f32, isagi serve's default)
//	ISAGI_SERVE2_CHUNK    serve's --chunk (32, its default)
//
// Each stream is a completion of a prompt of 64 tokens (different for
// every stream and round, so that no pooled conversation reuses a cached
// prefix) and 32 greedy decode steps after its first token, all streams
// of a count sent together. The counts take turns within a round, the
// order flipping each round; every figure is the median of the rounds
// with its min and max. Records go to serve2.jsonl; the device check's
// summary prints one line per goal.

// Issue 54's GPU goals, which the records carry.
const (
	goalServe4Ratio  = 3.0 // aggregate decode at 4 streams ÷ one stream's
	goalServe32Ratio = 8.0 // at 32 streams
	goalServeTTFT8   = 2.0 // TTFT p99 at 8 streams ÷ the 1-stream TTFT (median)
	serve2PromptLen  = 64
	serve2Steps      = 32
)

// serve2Config is one run's parameters (the benchmark reads them from
// the environment; the recorder test sets its own).
type serve2Config struct {
	streams []int // with 1
	rounds  int
	kv      backend.KVType
	chunk   int // 0: serve's default
	steps   int // decode steps after the first token
	prompt  int // prompt tokens
}

func serve2Env(tb testing.TB) serve2Config {
	c := serve2Config{streams: []int{1, 4, 8, 32}, rounds: 5, steps: serve2Steps, prompt: serve2PromptLen}
	if s := os.Getenv("ISAGI_SERVE2_STREAMS"); s != "" {
		c.streams = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 64 {
				tb.Fatalf("ISAGI_SERVE2_STREAMS: %q is not a count of 1…64", f)
			}
			c.streams = append(c.streams, n)
		}
	}
	if n, err := strconv.Atoi(os.Getenv("ISAGI_SERVE2_ROUNDS")); err == nil && n > 0 {
		c.rounds = n
	}
	if s := os.Getenv("ISAGI_SERVE2_KV"); s != "" {
		t, err := backend.ParseKVType(s)
		if err != nil {
			tb.Fatalf("ISAGI_SERVE2_KV: %v", err)
		}
		c.kv = t
	}
	if n, err := strconv.Atoi(os.Getenv("ISAGI_SERVE2_CHUNK")); err == nil && n > 0 {
		c.chunk = n
	}
	return c
}

// serve2Server is a serve.Server over a session on the device, on
// loopback.
type serve2Server struct {
	root   *session.Session
	srv    *serve.Server
	ts     *httptest.Server
	client *http.Client
	id     string
}

// openServe2 opens path on g (every conversation on a Share of its
// backend, as `isagi serve --gpu` runs) and serves it with parallel
// conversations of ctx tokens.
func openServe2(tb testing.TB, g device, path string, parallel, ctx, chunk int, kv backend.KVType) *serve2Server {
	tb.Helper()
	root, err := session.Open(path, session.Options{
		Backend: func(int) (backend.Backend, error) {
			return g.NewBackend()
		},
		Ctx: ctx, KVType: kv, Settings: session.DefaultSettings(),
	})
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	srv, err := serve.New(root, serve.Config{ModelID: "m", Parallel: parallel, Queue: parallel, Chunk: chunk, Ctx: ctx})
	if err != nil {
		root.Close()
		tb.Fatalf("serve %s: %v", path, err)
	}
	s := &serve2Server{root: root, srv: srv, ts: httptest.NewServer(srv), id: "m"}
	// One connection a stream: the default transport keeps two idle.
	s.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * parallel}}
	return s
}

func (s *serve2Server) close() {
	s.client.CloseIdleConnections()
	s.ts.Close()
	s.srv.Close()
	s.root.Close()
}

// serve2Stream is one streamed completion as its client saw it.
type serve2Stream struct {
	sent   time.Time
	tokens []time.Time // arrival of each chunk with text: a token's, in effect
	end    time.Time   // the final chunk's (finish_reason)
	n      int         // usage.completion_tokens
	text   string
	finish string
}

// stream sends one streamed completion and reads it to its end.
func (s *serve2Server) stream(ctx context.Context, prompt string, maxTok int) (serve2Stream, error) {
	body, err := json.Marshal(map[string]any{"model": s.id, "prompt": prompt, "max_tokens": maxTok, "temperature": 0,
		"stream": true, "stream_options": map[string]any{"include_usage": true}})
	if err != nil {
		return serve2Stream{}, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", s.ts.URL+"/v1/completions", bytes.NewReader(body))
	if err != nil {
		return serve2Stream{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	r := serve2Stream{sent: time.Now()}
	resp, err := s.client.Do(req)
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return r, fmt.Errorf("status %d: %s", resp.StatusCode, b.String())
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var text strings.Builder
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		now := time.Now()
		if line == "[DONE]" {
			break
		}
		var ev struct {
			Choices []struct {
				Text         string  `json:"text"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return r, fmt.Errorf("chunk %q: %w", line, err)
		}
		if ev.Error != nil {
			return r, fmt.Errorf("the stream failed: %s", ev.Error.Message)
		}
		if ev.Usage != nil {
			r.n = ev.Usage.CompletionTokens
		}
		for _, c := range ev.Choices {
			if c.FinishReason != nil {
				r.finish, r.end = *c.FinishReason, now
			} else if c.Text != "" {
				r.tokens = append(r.tokens, now)
			}
			text.WriteString(c.Text)
		}
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	r.text = text.String()
	if r.finish == "" {
		return r, fmt.Errorf("the stream ended without its final chunk")
	}
	return r, nil
}

// serve2Round sends the prompts at once (a goroutine each, released
// together) and returns their streams.
func (s *serve2Server) serve2Round(tb testing.TB, prompts []string, maxTok int) []serve2Stream {
	out := make([]serve2Stream, len(prompts))
	errs := make([]error, len(prompts))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, p := range prompts {
		wg.Go(func() {
			<-start
			out[i], errs[i] = s.stream(context.Background(), p, maxTok)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			tb.Fatalf("stream %d of %d: %v", i, len(prompts), err)
		}
	}
	return out
}

// serve2Figures are one round's figures.
type serve2Figures struct {
	// agg is the aggregate decode rate: the tokens that arrived while
	// every stream was decoding (after the last stream's first token,
	// up to the first stream's last), over that window; when the
	// streams did not all decode at once (a window under two tokens a
	// stream), every token after each stream's first over the span from
	// the first first token to the last last one (steady false).
	agg    float64
	steady bool
	window float64 // seconds
	// overall is every generated token over the span from the first
	// request sent to the last final chunk: prefill included.
	overall float64
	ttft    []float64 // seconds, per stream
}

// serve2FiguresOf reads a round's streams. A held-back token (a byte
// that is not yet whole UTF-8) arrives with the next one: its chunk
// counts once, which the rare byte tokens of a random model's replies
// cannot move by more than a fraction of a percent.
func serve2FiguresOf(streams []serve2Stream) serve2Figures {
	var f serve2Figures
	var firstFirst, lastFirst, firstLast, lastLast, firstSent, lastEnd time.Time
	total, after := 0, 0
	for i, s := range streams {
		first, last := s.end, s.end
		if len(s.tokens) > 0 {
			first, last = s.tokens[0], s.tokens[len(s.tokens)-1]
		}
		f.ttft = append(f.ttft, first.Sub(s.sent).Seconds())
		if i == 0 || first.Before(firstFirst) {
			firstFirst = first
		}
		if i == 0 || first.After(lastFirst) {
			lastFirst = first
		}
		if i == 0 || last.Before(firstLast) {
			firstLast = last
		}
		if i == 0 || last.After(lastLast) {
			lastLast = last
		}
		if i == 0 || s.sent.Before(firstSent) {
			firstSent = s.sent
		}
		if i == 0 || s.end.After(lastEnd) {
			lastEnd = s.end
		}
		total += s.n
		after += max(len(s.tokens)-1, 0)
	}
	if w := firstLast.Sub(lastFirst).Seconds(); w > 0 {
		in := 0
		for _, s := range streams {
			for _, t := range s.tokens {
				if t.After(lastFirst) && !t.After(firstLast) {
					in++
				}
			}
		}
		if in >= 2*len(streams) {
			f.agg, f.steady, f.window = float64(in)/w, true, w
		}
	}
	if !f.steady {
		if w := lastLast.Sub(firstFirst).Seconds(); w > 0 {
			f.agg, f.window = float64(after)/w, w
		}
	}
	if w := lastEnd.Sub(firstSent).Seconds(); w > 0 {
		f.overall = float64(total) / w
	}
	return f
}

// percentile is the nearest-rank p-th percentile of v.
func percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// serve2Prompts are n prompts of about tokens tokens each, of letters
// drawn for seed+i (so that no two share more than their first few
// tokens, BOS and the leading space's, and a pooled conversation reuses
// no more of its last prompt), lengthened until root's tokenizer counts
// tokens.
func serve2Prompts(tb testing.TB, root *session.Session, n, tokens int, seed uint64) []string {
	ps := make([]string, n)
	for i := range ps {
		r := rand.New(rand.NewPCG(seed+uint64(i), 54))
		var b strings.Builder
		for {
			b.WriteByte(byte('a' + r.IntN(26)))
			if b.Len() < tokens/2 {
				continue
			}
			k, err := root.Conversation().CompletionTokens(b.String())
			if err != nil {
				tb.Fatal(err)
			}
			if k >= tokens {
				break
			}
		}
		ps[i] = b.String()
	}
	return ps
}

// BenchmarkGPUServe2 measures issue 54's GPU goals on the 8B Q4_K_M
// shape (ISAGI_SERVE2_8B) through the server: aggregate decode tok/s at
// 1, 4, 8 and 32 concurrent streams and the ratios to one stream (goals
// ≥ 3× at 4, ≥ 8× at 32), each stream's time to its first token (goal:
// p99 at 8 streams ≤ 2× the 1-stream TTFT), and each figure's share of
// the memory roofline. It times its own rounds once per call: run it with
// -test.benchtime 1x.
func BenchmarkGPUServe2(b *testing.B) {
	path := os.Getenv("ISAGI_SERVE2_8B")
	if path == "" {
		b.Skip("ISAGI_SERVE2_8B names no model")
	}
	g := gpuDevice(b)
	bw, err := g.CopyBandwidth()
	if err != nil {
		b.Fatal(err)
	}
	// As isagi serve runs (unless GOGC is set): its heap is mostly
	// pointer-free caches.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(20))
	}
	serve2Rounds(b, g, path, bw, serve2Env(b))
}

func serve2Rounds(tb testing.TB, g device, path string, bw float64, cfg serve2Config) {
	m, err := model.Open(path) // the roofline's bytes: the file's tensors
	if err != nil {
		tb.Fatal(err)
	}
	defer m.Close()
	name := strings.TrimSuffix(filepath.Base(path), ".gguf")
	streams := slices.Clone(cfg.streams)
	if !slices.Contains(streams, 1) {
		streams = append([]int{1}, streams...)
	}
	most := slices.Max(streams)
	maxTok := cfg.steps + 1 // the first token (the prompt's) and steps more
	ctx := cfg.prompt + maxTok + 32
	s := openServe2(tb, g, path, most, ctx, cfg.chunk, cfg.kv)
	defer s.close()

	// Every round's prompts, made before any is timed; the warm round
	// first (each count once: the steps' graphs built, the pooled
	// conversations used).
	rounds := cfg.rounds
	prompts := make([]map[int][]string, rounds+1)
	seed := uint64(1)
	for r := range prompts {
		prompts[r] = map[int][]string{}
		for _, n := range streams {
			prompts[r][n] = serve2Prompts(tb, s.root, n, cfg.prompt, seed)
			seed += uint64(n)
		}
	}
	promptTok, err := s.root.Conversation().CompletionTokens(prompts[0][1][0])
	if err != nil {
		tb.Fatal(err)
	}
	for _, n := range streams {
		s.serve2Round(tb, prompts[0][n], maxTok)
	}

	type series struct {
		agg, overall, ratios []float64
		ttft                 []float64
		steady               int
		steps, seqs          int64
		tokens               int
	}
	by := map[int]*series{}
	for _, n := range streams {
		by[n] = &series{}
	}
	for r := range rounds {
		order := slices.Clone(streams)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		got := map[int]serve2Figures{}
		for _, n := range order {
			st0 := s.srv.BatchStats()
			out := s.serve2Round(tb, prompts[r+1][n], maxTok)
			st1 := s.srv.BatchStats()
			f := serve2FiguresOf(out)
			got[n] = f
			sr := by[n]
			sr.agg, sr.overall, sr.ttft = append(sr.agg, f.agg), append(sr.overall, f.overall), append(sr.ttft, f.ttft...)
			if f.steady {
				sr.steady++
			}
			sr.steps += st1.Steps - st0.Steps
			sr.seqs += st1.Seqs - st0.Seqs
			for _, o := range out {
				sr.tokens += o.n
			}
		}
		for _, n := range streams {
			if one := got[1].agg; one > 0 {
				by[n].ratios = append(by[n].ratios, got[n].agg/one)
			}
		}
	}

	one := spreadOf(by[1].agg)
	ttft1 := percentile(by[1].ttft, 50)
	pos := float64(kvPosBytes(m, cfg.kv))
	depth := float64(promptTok) + float64(maxTok)/2 // a decode step's mean depth
	for _, n := range streams {
		sr := by[n]
		agg := spreadOf(sr.agg)
		ratio := 0.0 // JSON has no Inf: a 1-stream round that timed nothing
		if one.Median > 0 {
			ratio = agg.Median / one.Median
		}
		// A step of n decoding streams reads the weights once and each
		// stream's cache; steps/s = aggregate tok/s ÷ n.
		stepBytes := float64(decodeBytes(m)) + float64(n)*pos*depth
		roof := 100 * stepBytes * agg.Median / float64(n) / bw
		meanBatch := 0.0
		if sr.steps > 0 {
			meanBatch = float64(sr.seqs) / float64(sr.steps)
		}
		rec := map[string]any{
			"kind": "decode", "model": name, "kv": cfg.kv.String(), "streams": n, "rounds": rounds,
			"prompt_tokens": promptTok, "max_tokens": maxTok, "chunk": cfg.chunk,
			"aggregate_tok_s": agg, "overall_tok_s": spreadOf(sr.overall), "ratio": ratio,
			"steady_rounds": sr.steady, "mean_batch": meanBatch, "mean_tokens": float64(sr.tokens) / float64(rounds*n),
			"ttft_p50_ms": 1e3 * percentile(sr.ttft, 50), "ttft_p99_ms": 1e3 * percentile(sr.ttft, 99), "ttft_max_ms": 1e3 * slices.Max(sr.ttft),
			"roofline_pct": roof, "weight_bytes_per_step": decodeBytes(m), "copy_bandwidth_gbs": bw / 1e9, "device": g.Name(),
		}
		if len(sr.ratios) > 0 {
			rec["round_ratios"] = spreadOf(sr.ratios)
		}
		goal := map[int]float64{4: goalServe4Ratio, 32: goalServe32Ratio}[n]
		if goal > 0 {
			rec["goal_ratio"], rec["met"] = goal, ratio >= goal
		}
		tb.Logf("%s, %d streams (%s cache): aggregate decode %s tok/s, %.2f× one stream's, %.1f%% of roofline, mean batch %.2f, %d/%d rounds steady; TTFT p50 %.1f ms, p99 %.1f ms; overall %s tok/s",
			name, n, cfg.kv, agg, ratio, roof, meanBatch, sr.steady, rounds, 1e3*percentile(sr.ttft, 50), 1e3*percentile(sr.ttft, 99), spreadOf(sr.overall))
		record(tb, "serve2.jsonl", rec)
	}
	if sr := by[8]; sr != nil {
		p99 := percentile(sr.ttft, 99)
		ratio := p99 / ttft1
		tb.Logf("%s TTFT: p99 at 8 streams %.1f ms ÷ 1-stream %.1f ms = %.2f; goal ≤ %.1f", name, 1e3*p99, 1e3*ttft1, ratio, goalServeTTFT8)
		record(tb, "serve2.jsonl", map[string]any{
			"kind": "ttft", "model": name, "kv": cfg.kv.String(), "rounds": rounds, "prompt_tokens": promptTok,
			"one_ms": 1e3 * ttft1, "one_p99_ms": 1e3 * percentile(by[1].ttft, 99), "p50_8_ms": 1e3 * percentile(sr.ttft, 50), "p99_8_ms": 1e3 * p99,
			"samples_8": len(sr.ttft), "ratio": ratio, "goal_ratio": goalServeTTFT8, "met": ratio <= goalServeTTFT8, "device": g.Name(),
		})
	}
}

// serve2EqualModels are the fixtures of set a that TestGPUServe2Equal
// serves: a trained llama (kjv) and a qwen2 (random weights, its own
// tokenizer), both Q4_K_M.
var serve2EqualModels = []string{"kjv/kjv-q4_k_m.gguf", "quants/qwen2-q4_k_m.gguf"}

// TestGPUServe2Equal: several greedy requests served at once, prompts of
// different lengths (one longer than a --chunk, read in chunks beside
// the others' decode steps), get exactly the replies each gets alone on
// the GPU — the same tokens, text, finish reason and count — over two
// batched passes; the logprobs are compared only to report how far apart
// they are (a batched step's products are many-row kernels, a lone
// decode step's one-row ones). A difference is reported with alone's
// top-2 margin at that token, which says whether it was a near-tie.
func TestGPUServe2Equal(t *testing.T) {
	g := gpuDevice(t)
	found := 0
	for _, rel := range serve2EqualModels {
		path := filepath.Join(fixtureDir(), rel)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		found++
		t.Run(rel, func(t *testing.T) { serve2Equal(t, g, path, rel, 2, true) })
	}
	if found == 0 {
		t.Fatalf("none of %v under %s", serve2EqualModels, fixtureDir())
	}
}

// serve2Reply is a non-streamed completion's answer with logprobs.
type serve2Reply struct {
	Choices []struct {
		Text         string `json:"text"`
		FinishReason string `json:"finish_reason"`
		Logprobs     struct {
			Tokens        []string             `json:"tokens"`
			TokenLogprobs []float64            `json:"token_logprobs"`
			TopLogprobs   []map[string]float64 `json:"top_logprobs"`
		} `json:"logprobs"`
	} `json:"choices"`
	Usage struct {
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// same is what must not change with batching.
func (r *serve2Reply) same(o *serve2Reply) bool {
	a, b := r.Choices[0], o.Choices[0]
	return a.Text == b.Text && a.FinishReason == b.FinishReason && r.Usage.CompletionTokens == o.Usage.CompletionTokens &&
		slices.Equal(a.Logprobs.Tokens, b.Logprobs.Tokens)
}

func (s *serve2Server) complete(prompt string, maxTok int) (*serve2Reply, error) {
	body, err := json.Marshal(map[string]any{"model": s.id, "prompt": prompt, "max_tokens": maxTok, "temperature": 0, "logprobs": 2})
	if err != nil {
		return nil, err
	}
	resp, err := s.client.Post(s.ts.URL+"/v1/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b.String())
	}
	var r serve2Reply
	if err := json.Unmarshal(b.Bytes(), &r); err != nil {
		return nil, err
	}
	if len(r.Choices) != 1 {
		return nil, fmt.Errorf("%d choices", len(r.Choices))
	}
	return &r, nil
}

// serve2EqualPrompts are prompts of different lengths, no two sharing
// more than their first word (a pooled conversation reuses a cached
// prefix, which would be a difference of its own), with their reply
// lengths.
func serve2EqualPrompts() ([]string, []int) {
	long := strings.Repeat("And the earth was without form, and void; and darkness was upon the face of the deep. ", 3)
	other := strings.Repeat("Blessed is the man that walketh not in the counsel of the ungodly, nor standeth in the way of sinners. ", 2)
	// The longest, long, fits qwen2's window of 256 with its reply.
	return []string{
			"In the beginning",
			"The LORD is my shepherd; I shall not want. He maketh me to lie down in green pastures",
			long,
			"Let there be light",
			other,
			"Jesus wept.",
		},
		[]int{40, 24, 32, 36, 20, 28}
}

// serve2Equal serves serve2EqualPrompts alone, then all at once passes
// times, and wants every batched reply equal to its lone one; needBatch
// also wants some step to have computed more than one request.
func serve2Equal(t *testing.T, g device, path, label string, passes int, needBatch bool) {
	prompts, maxToks := serve2EqualPrompts()
	s := openServe2(t, g, path, len(prompts), 1024, 0, backend.KVF32)
	defer s.close()
	alone := make([]*serve2Reply, len(prompts))
	for i, p := range prompts {
		var err error
		if alone[i], err = s.complete(p, maxToks[i]); err != nil {
			t.Fatalf("request %d alone: %v", i, err)
		}
	}
	type diff struct {
		Request, Pass, At  int
		Alone, Batched     string
		Margin             float64 // alone's top-2 logprob gap at At (NaN: not known)
		AloneText, BatText string
	}
	var diffs []diff
	worst := 0.0 // the largest |Δ logprob| of the tokens both chose
	before := s.srv.BatchStats()
	for pass := range passes {
		got := make([]*serve2Reply, len(prompts))
		errs := make([]error, len(prompts))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, p := range prompts {
			wg.Go(func() {
				<-start
				got[i], errs[i] = s.complete(p, maxToks[i])
			})
		}
		close(start)
		wg.Wait()
		for i := range prompts {
			if errs[i] != nil {
				t.Fatalf("request %d batched (pass %d): %v", i, pass, errs[i])
			}
			a, b := alone[i].Choices[0].Logprobs, got[i].Choices[0].Logprobs
			at := -1
			for k := range min(len(a.Tokens), len(b.Tokens)) {
				if a.Tokens[k] != b.Tokens[k] {
					at = k
					break
				}
				if k < len(a.TokenLogprobs) && k < len(b.TokenLogprobs) {
					worst = max(worst, math.Abs(a.TokenLogprobs[k]-b.TokenLogprobs[k]))
				}
			}
			if alone[i].same(got[i]) {
				continue
			}
			d := diff{Request: i, Pass: pass, At: at, Margin: math.NaN(), AloneText: alone[i].Choices[0].Text, BatText: got[i].Choices[0].Text}
			if at >= 0 {
				d.Alone, d.Batched = a.Tokens[at], b.Tokens[at]
				if at < len(a.TopLogprobs) {
					var top []float64
					for _, v := range a.TopLogprobs[at] {
						top = append(top, v)
					}
					slices.Sort(top)
					if len(top) >= 2 {
						d.Margin = top[len(top)-1] - top[len(top)-2]
					}
				}
			}
			diffs = append(diffs, d)
			t.Errorf("%s request %d (pass %d): the batched reply differs from alone's at token %d (%q for %q; alone's top-2 margin %.3g):\n batched %q\n alone   %q",
				label, i, pass, at, d.Batched, d.Alone, d.Margin, d.BatText, d.AloneText)
		}
	}
	after := s.srv.BatchStats()
	batched := after.Batched - before.Batched
	meanBatch := float64(after.Seqs-before.Seqs) / float64(max(after.Steps-before.Steps, 1))
	// Whether the requests overlap is the machine's timing: the GPU test
	// wants them to (else it proved nothing), the CPU run of the code here
	// only logs it.
	if batched == 0 && needBatch {
		t.Errorf("%s: no step computed more than one request", label)
	}
	t.Logf("%s: %d requests × %d passes, %d differ; %d of %d steps batched, mean batch %.2f; largest logprob difference of the same token %.3g",
		label, len(prompts), passes, len(diffs), batched, after.Steps-before.Steps, meanBatch, worst)
	differ := make([]map[string]any, 0, len(diffs))
	for _, d := range diffs {
		m := map[string]any{"request": d.Request, "pass": d.Pass, "at": d.At, "alone": d.Alone, "batched": d.Batched}
		if !math.IsNaN(d.Margin) {
			m["alone_margin"] = d.Margin
		}
		differ = append(differ, m)
	}
	record(t, "serve2.jsonl", map[string]any{
		"kind": "equal", "model": label, "requests": len(prompts), "passes": passes, "replies": len(prompts) * passes,
		"differ": differ, "equal": len(prompts)*passes - len(diffs), "batched_steps": batched, "mean_batch": meanBatch,
		"max_logprob_diff": worst, "met": len(diffs) == 0 && batched > 0, "device": g.Name(),
	})
}
