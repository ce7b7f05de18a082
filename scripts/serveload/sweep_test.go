package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	vals := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct{ p, want float64 }{
		{0.5, 5}, {0.99, 10}, {0.1, 1}, {0.11, 2}, {1, 10}, {0.001, 1},
	} {
		if got := percentile(vals, c.p); got != c.want {
			t.Errorf("percentile(1…10, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile(nil) = %v, want 0", got)
	}
	if got := percentile([]float64{7}, 0.99); got != 7 {
		t.Errorf("percentile([7], 0.99) = %v, want 7", got)
	}
}

func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	results := []reqResult{
		{ttft: 100 * ms, latency: 1100 * ms, tokens: 11, promptTokens: 40, sawText: true}, // 100 ms per token
		{ttft: 300 * ms, latency: 2300 * ms, tokens: 11, promptTokens: 40, sawText: true}, // 200
		{ttft: 200 * ms, latency: 200 * ms, tokens: 1, promptTokens: 40, sawText: true},   // no gap
		{latency: 50 * ms, tokens: 0, promptTokens: 40},                                   // no text
		{err: errors.New("status 500: boom")},
		{err: errors.New("second")},
	}
	s := summarize(3, results, 2*time.Second)
	want := levelSummary{
		Clients: 3, Requests: 6, OK: 4, Failed: 2, WallS: 2, Tokens: 23, TokS: 11.5, ReqS: 2,
		PromptTokens: 40, TTFTP50: 200, TTFTP99: 300, TPOTP50: 100, TPOTP99: 200,
		LatencyP50: 200, LatencyP99: 2300, FirstError: "status 500: boom",
	}
	if s != want {
		t.Errorf("summarize:\n got %+v\nwant %+v", s, want)
	}
	if row := s.row(); !strings.HasPrefix(row, "|  | 3 | 4 / 2 | 40 | 11.5 | 200 | 300 | 100.0 | 200.0 | 200 |") {
		t.Errorf("row: %s", row)
	}
}

func TestParseLevels(t *testing.T) {
	got, err := parseLevels("1, 2,4,8,16")
	if err != nil || fmt.Sprint(got) != "[1 2 4 8 16]" {
		t.Errorf("parseLevels = %v, %v", got, err)
	}
	for _, bad := range []string{"", "1,,2", "0", "-1", "a"} {
		if _, err := parseLevels(bad); err == nil {
			t.Errorf("parseLevels(%q): no error", bad)
		}
	}
}

func TestParseExtra(t *testing.T) {
	m, err := parseExtra(`{"cache_prompt": false, "logit_bias": {"131": false}}`)
	if err != nil || m["cache_prompt"] != false || m["logit_bias"] == nil {
		t.Errorf("parseExtra = %v, %v", m, err)
	}
	if m, err := parseExtra(""); m != nil || err != nil {
		t.Errorf("parseExtra(\"\") = %v, %v", m, err)
	}
	for _, bad := range []string{"null", "[1]", "{", `"x"`} {
		if _, err := parseExtra(bad); err == nil {
			t.Errorf("parseExtra(%q): no error", bad)
		}
	}
}

func TestReadStream(t *testing.T) {
	// llama-server's completions stream: a chunk per token, the last with
	// the usage; chat's first chunk has a role and no text.
	stream := `data: {"choices":[{"delta":{"role":"assistant"}}]}

data: {"choices":[{"text":"Hello"}]}

data: {"choices":[{"delta":{"content":" world"}}]}

data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3}}

data: [DONE]

`
	r, err := readStream(strings.NewReader(stream), time.Now())
	if err != nil || r.tokens != 3 || r.promptTokens != 9 || !r.sawText || r.latency < r.ttft {
		t.Errorf("readStream = %+v, %v", r, err)
	}
	// Without usage the chunks with text are counted.
	r, err = readStream(strings.NewReader("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":\"b\"}]}\n\ndata: [DONE]\n\n"), time.Now())
	if err != nil || r.tokens != 2 {
		t.Errorf("readStream without usage = %+v, %v", r, err)
	}
	for _, bad := range []string{
		"data: {\"choices\":[{\"text\":\"a\"}]}\n\n", // no [DONE]
		"data: {\"error\":{\"message\":\"no\"}}\n\n", // an error event
		"data: {not json}\n\ndata: [DONE]\n\n",       // malformed
	} {
		if _, err := readStream(strings.NewReader(bad), time.Now()); err == nil {
			t.Errorf("readStream(%q): no error", bad)
		}
	}
}

// TestRunSweep runs a small sweep against a fake streaming server on
// loopback: every request arrives as a completion with the fields asked
// for, and the table has a row per level.
func TestRunSweep(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		if r.URL.Path != "/v1/completions" || json.NewDecoder(r.Body).Decode(&req) != nil ||
			req["stream"] != true || req["ignore_eos"] != true || req["max_tokens"] != float64(5) || req["model"] != "m" || req["cache_prompt"] != false {
			http.Error(w, fmt.Sprintf("unexpected request %s %v", r.URL.Path, req), http.StatusBadRequest)
			return
		}
		calls.Add(1)
		for range 5 {
			fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"x\"}]}\n\n")
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	var out strings.Builder
	err := runSweep(&out, sweepConfig{
		base: srv.URL, model: "m", label: "fake", levels: []int{1, 3}, perClient: 2, maxTokens: 5,
		promptWords: 8, ignoreEOS: true, temperature: -1, timeout: 10 * time.Second, warmup: 1,
		extra: map[string]any{"cache_prompt": false},
	})
	if err != nil {
		t.Fatalf("runSweep: %v\n%s", err, out.String())
	}
	if got := calls.Load(); got != 1+2+6 {
		t.Errorf("%d requests, want 9", got)
	}
	text := out.String()
	for _, want := range []string{"| fake | 1 | 2 / 0 | 12 |", "| fake | 3 | 6 / 0 | 12 |"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}
