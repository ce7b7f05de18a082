package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// sweepConfig is the sweep mode's: at each concurrency level, that many
// clients each send perClient streamed requests back to back (a closed
// loop), and the level's throughput and latencies are reported.
type sweepConfig struct {
	base, model string
	label       string
	levels      []int
	perClient   int
	maxTokens   int
	chat        bool
	promptWords int
	ignoreEOS   bool
	temperature float64 // below 0: not sent (the server's default)
	timeout     time.Duration
	warmup      int
	pause       time.Duration
	jsonOut     bool
	extra       map[string]any // fields added to every request (-extra)
}

// reqResult is one streamed request: the time to its first token (the
// first chunk whose text is not empty), to its end, and the tokens the
// server counted in its usage (or, without one, the chunks with text).
type reqResult struct {
	err          error
	ttft         time.Duration
	latency      time.Duration
	tokens       int
	promptTokens int
	sawText      bool // a chunk had text: ttft is known
}

// levelSummary is one concurrency level's figures.
type levelSummary struct {
	Label        string  `json:"label,omitempty"`
	Clients      int     `json:"clients"`
	Requests     int     `json:"requests"`
	OK           int     `json:"ok"`
	Failed       int     `json:"failed"`
	WallS        float64 `json:"wall_s"`
	Tokens       int     `json:"completion_tokens"`
	TokS         float64 `json:"tok_s"`
	ReqS         float64 `json:"req_s"`
	PromptTokens float64 `json:"prompt_tokens_mean"`
	TTFTP50      float64 `json:"ttft_p50_ms"`
	TTFTP99      float64 `json:"ttft_p99_ms"`
	TPOTP50      float64 `json:"tpot_p50_ms"`
	TPOTP99      float64 `json:"tpot_p99_ms"`
	LatencyP50   float64 `json:"latency_p50_ms"`
	LatencyP99   float64 `json:"latency_p99_ms"`
	FirstError   string  `json:"first_error,omitempty"`
}

// parseExtra reads -extra: a JSON object, or nothing.
func parseExtra(s string) (map[string]any, error) {
	if s == "" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, fmt.Errorf("-extra %.60q: want a JSON object (%v)", s, err)
	}
	return m, nil
}

// parseLevels reads "1,2,4,8,16".
func parseLevels(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sweep %q: want positive numbers separated by commas", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// promptText is a fixed English text of n words: every request's prompt
// is its marker followed by these words. Words, not tokens: how many
// tokens they make is the tokenizer's (the table's prompt column is the
// servers' own count).
func promptText(n int) string {
	words := strings.Fields(`the old lighthouse keeper climbed the stairs each evening to light the lamp
		that guided ships past the rocks below while the wind carried salt and rain across the harbour
		and the town slept under a sky full of slow clouds and distant stars`)
	out := make([]string, n)
	for i := range out {
		out[i] = words[i%len(words)]
	}
	return strings.Join(out, " ")
}

// percentile is the nearest-rank p-quantile (0 < p ≤ 1) of sorted values:
// the smallest value that at least p of them do not exceed. With few
// values p99 is the largest. 0 for none.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// summarize makes a level's figures from its requests and its wall time.
// The time per output token of a request is (latency − TTFT) / (tokens −
// 1): the gaps between its tokens after the first (requests of one token
// have none and are left out of it).
func summarize(clients int, results []reqResult, wall time.Duration) levelSummary {
	s := levelSummary{Clients: clients, Requests: len(results), WallS: wall.Seconds()}
	var ttft, tpot, lat []float64
	prompt := 0
	for _, r := range results {
		if r.err != nil {
			s.Failed++
			if s.FirstError == "" {
				s.FirstError = r.err.Error()
			}
			continue
		}
		s.OK++
		s.Tokens += r.tokens
		prompt += r.promptTokens
		lat = append(lat, ms(r.latency))
		if !r.sawText {
			continue
		}
		ttft = append(ttft, ms(r.ttft))
		if r.tokens > 1 {
			tpot = append(tpot, ms(r.latency-r.ttft)/float64(r.tokens-1))
		}
	}
	if s.OK > 0 {
		s.PromptTokens = float64(prompt) / float64(s.OK)
	}
	if wall > 0 {
		s.TokS = float64(s.Tokens) / wall.Seconds()
		s.ReqS = float64(s.OK) / wall.Seconds()
	}
	for _, v := range [][]float64{ttft, tpot, lat} {
		slices.Sort(v)
	}
	s.TTFTP50, s.TTFTP99 = percentile(ttft, 0.50), percentile(ttft, 0.99)
	s.TPOTP50, s.TPOTP99 = percentile(tpot, 0.50), percentile(tpot, 0.99)
	s.LatencyP50, s.LatencyP99 = percentile(lat, 0.50), percentile(lat, 0.99)
	return s
}

const tableHead = "| server | clients | ok / failed | prompt tok | tok/s (all) | TTFT p50 ms | TTFT p99 ms | TPOT p50 ms | TPOT p99 ms | latency p50 ms |\n" +
	"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"

// row is the level's line of the markdown table.
func (s levelSummary) row() string {
	return fmt.Sprintf("| %s | %d | %d / %d | %.0f | %.1f | %.0f | %.0f | %.1f | %.1f | %.0f |",
		s.Label, s.Clients, s.OK, s.Failed, s.PromptTokens, s.TokS, s.TTFTP50, s.TTFTP99, s.TPOTP50, s.TPOTP99, s.LatencyP50)
}

// runSweep runs the levels in order (after the warm-up requests, which
// are not measured) and prints a markdown row, or a JSON line, as each
// level ends. Any failed request fails the run once all levels ran.
func runSweep(out io.Writer, c sweepConfig) error {
	if c.model == "" {
		var err error
		if c.model, err = firstModel(c.base); err != nil {
			return err
		}
	}
	if c.label == "" {
		c.label = c.model
	}
	// A connection per request: llama-server (cpp-httplib) closes a kept
	// connection after a few requests, and a POST sent on one it is
	// closing fails rather than being retried. A loopback connect is far
	// below anything measured here, and both servers pay it alike.
	client := &http.Client{Timeout: c.timeout, Transport: &http.Transport{
		DisableKeepAlives: true, DisableCompression: true,
	}}
	prompt := promptText(c.promptWords)
	for i := range c.warmup {
		if r := c.one(client, fmt.Sprintf("warm-up %d. %s", i, prompt)); r.err != nil {
			return fmt.Errorf("warm-up request: %w", r.err)
		}
	}
	if !c.jsonOut {
		fmt.Fprintf(out, "%s: %s, %d requests per client, max_tokens %d, %d-word prompt, ignore_eos %v\n\n",
			c.label, c.endpoint(), c.perClient, c.maxTokens, c.promptWords, c.ignoreEOS)
		fmt.Fprintln(out, tableHead)
	}
	failed := 0
	for li, n := range c.levels {
		if li > 0 {
			time.Sleep(c.pause)
		}
		s := c.level(client, n, prompt)
		s.Label = c.label
		failed += s.Failed
		if c.jsonOut {
			b, err := json.Marshal(s)
			if err != nil {
				return fmt.Errorf("level %d: %w", n, err)
			}
			fmt.Fprintln(out, string(b))
		} else {
			fmt.Fprintln(out, s.row())
		}
		if s.Failed > 0 && !c.jsonOut {
			fmt.Fprintf(out, "<!-- %d clients: first failure: %s -->\n", n, s.FirstError)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d requests failed", failed)
	}
	return nil
}

// level runs n clients of perClient requests each, all starting at once.
// Each request's prompt begins with its own marker, so that no server
// can answer it from another request's cached prefix.
func (c sweepConfig) level(client *http.Client, n int, prompt string) levelSummary {
	results := make([]reqResult, n*c.perClient)
	var wg sync.WaitGroup
	start := time.Now()
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range c.perClient {
				results[k*c.perClient+i] = c.one(client, fmt.Sprintf("%d-%d-%d. %s", n, k, i, prompt))
			}
		}()
	}
	wg.Wait()
	return summarize(n, results, time.Since(start))
}

func (c sweepConfig) endpoint() string {
	if c.chat {
		return "/v1/chat/completions"
	}
	return "/v1/completions"
}

// body is the request's JSON. ignore_eos is llama-server's (generate
// max_tokens whatever the model samples); isagi ignores unknown fields
// and stops at the end-of-sequence token as usual, so it is sent only
// when asked for.
func (c sweepConfig) body(prompt string) ([]byte, error) {
	req := map[string]any{
		"model": c.model, "max_tokens": c.maxTokens, "stream": true,
		"stream_options": map[string]any{"include_usage": true},
	}
	if c.chat {
		req["messages"] = []any{map[string]any{"role": "user", "content": prompt}}
	} else {
		req["prompt"] = prompt
	}
	if c.ignoreEOS {
		req["ignore_eos"] = true
	}
	if c.temperature >= 0 {
		req["temperature"] = c.temperature
	}
	for k, v := range c.extra {
		req[k] = v
	}
	return json.Marshal(req)
}

// one sends a streamed request and reads its events as they come.
func (c sweepConfig) one(client *http.Client, prompt string) reqResult {
	body, err := c.body(prompt)
	if err != nil {
		return reqResult{err: fmt.Errorf("request body: %w", err)}
	}
	req, err := http.NewRequestWithContext(context.Background(), "POST", c.base+c.endpoint(), strings.NewReader(string(body)))
	if err != nil {
		return reqResult{err: fmt.Errorf("request: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return reqResult{err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return reqResult{err: fmt.Errorf("status %d: %s", resp.StatusCode, strings.TrimSpace(string(data)))}
	}
	r, err := readStream(resp.Body, t0)
	if err != nil {
		return reqResult{err: err}
	}
	return r
}

// readStream reads an SSE stream of completion (or chat completion)
// chunks to its "data: [DONE]", timing its first token from t0.
func readStream(body io.Reader, t0 time.Time) (reqResult, error) {
	var r reqResult
	br := bufio.NewReader(body)
	chunks, usage := 0, false
	for {
		line, err := br.ReadString('\n')
		if err != nil && (err != io.EOF || line == "") {
			if err == io.EOF {
				return r, errors.New("stream ended without data: [DONE]")
			}
			return r, fmt.Errorf("reading the stream: %w", err)
		}
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		if !ok {
			continue // blank lines between events, comments, other fields
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			r.latency = time.Since(t0)
			break
		}
		var ev struct {
			Choices []struct {
				Text  string `json:"text"`
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				Prompt     int `json:"prompt_tokens"`
				Completion int `json:"completion_tokens"`
			} `json:"usage"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return r, fmt.Errorf("stream event %.80q: %w", data, err)
		}
		if len(ev.Error) > 0 && string(ev.Error) != "null" {
			return r, fmt.Errorf("stream error: %s", ev.Error)
		}
		for _, ch := range ev.Choices {
			if ch.Text == "" && ch.Delta.Content == "" {
				continue
			}
			if chunks == 0 {
				r.ttft = time.Since(t0)
			}
			chunks++
		}
		if ev.Usage != nil {
			usage = true
			r.tokens, r.promptTokens = ev.Usage.Completion, ev.Usage.Prompt
		}
	}
	if !usage {
		r.tokens = chunks
	}
	// Without any text (an empty reply, or bytes that never made a
	// character) the first token's time is unknown: the request counts
	// in the throughput and latency, not in TTFT or TPOT.
	r.sawText = chunks > 0
	return r, nil
}
