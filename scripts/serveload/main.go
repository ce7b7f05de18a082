// Command serveload is a bounded load test for `isagi serve`: N clients
// send chat completions at a fixed pace (requests spread evenly over the
// duration) and it reports the status codes, latency percentiles and
// token throughput. Any status but 200 and the server's intended 429 is a
// failure (exit 1).
//
//	isagi serve --demo --port 11435 &
//	go run ./scripts/serveload -url http://127.0.0.1:11435 -clients 16 -requests 2000 -duration 60s
//
// With -sweep it measures a server instead, isagi's or llama-server's
// alike: at each concurrency level N, N clients each send -per-client
// streamed requests back to back (a closed loop) to /v1/completions (or
// with -chat /v1/chat/completions), each prompt its own marker then
// -prompt-words fixed words, and it prints a markdown row per level: the
// completion tokens per second of all clients together, the time to the
// first token (p50, p99), the time per output token after it (p50, p99),
// and the requests answered and failed (-json: a JSON line per level).
//
//	go run ./scripts/serveload -url http://127.0.0.1:11435 -label isagi \
//		-sweep 1,2,4,8,16 -per-client 4 -max-tokens 64 -prompt-words 16
//
// -ignore-eos sends llama-server's "ignore_eos": true (isagi ignores the
// unknown field, and stops at the end-of-sequence token as usual). -extra
// adds fields of its own to every request. On the synthetic files of
// engine/internal/synth (random weights, a vocabulary of numbered pieces
// and byte tokens) llama-server answers a reply that ends in an
// incomplete UTF-8 character with a 500 ("does not match the expected
// Content-only format"); banning the byte tokens 0x80–0xFF (ids 131–258)
// avoids it, isagi ignoring the field:
//
//	-extra "$(python3 -c 'import json; print(json.dumps({"logit_bias": {str(i): False for i in range(131, 259)}}))')"
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:11435", "the server's base URL")
	model := flag.String("model", "", "model id (default: the first of GET /v1/models)")
	clients := flag.Int("clients", 16, "concurrent clients")
	requests := flag.Int("requests", 2000, "requests in all")
	duration := flag.Duration("duration", 60*time.Second, "time to spread the requests over")
	maxTokens := flag.Int("max-tokens", 8, "max_tokens of each request (sweep: 64 unless given)")
	stream := flag.Bool("stream", false, "stream the answers (SSE)")
	sweep := flag.String("sweep", "", "concurrency levels to measure in turn, e.g. 1,2,4,8,16 (sweep mode: -clients, -requests, -duration and -stream are not used)")
	perClient := flag.Int("per-client", 4, "sweep: requests each client sends back to back")
	chat := flag.Bool("chat", false, "sweep: /v1/chat/completions rather than /v1/completions")
	promptWords := flag.Int("prompt-words", 32, "sweep: words of the fixed prompt (the servers' token count is in the table)")
	ignoreEOS := flag.Bool("ignore-eos", false, "sweep: send \"ignore_eos\": true (llama-server's; isagi ignores it)")
	temperature := flag.Float64("temperature", -1, "sweep: the requests' temperature (below 0: not sent, the server's default)")
	label := flag.String("label", "", "sweep: the server column of the table (default: the model id)")
	timeout := flag.Duration("timeout", 10*time.Minute, "sweep: the longest one request may take")
	warmup := flag.Int("warmup", 1, "sweep: requests sent, not measured, before the first level")
	pause := flag.Duration("pause", time.Second, "sweep: idle time between levels")
	jsonOut := flag.Bool("json", false, "sweep: a JSON line per level instead of the markdown table")
	extraJSON := flag.String("extra", "", "sweep: a JSON object whose fields are added to every request, e.g. {\"cache_prompt\": false}")
	flag.Parse()
	if *sweep != "" {
		levels, err := parseLevels(*sweep)
		// Eight tokens time the first token more than the ones after it.
		given := false
		flag.Visit(func(f *flag.Flag) { given = given || f.Name == "max-tokens" })
		if !given {
			*maxTokens = 64
		}
		extra, xerr := parseExtra(*extraJSON)
		if err == nil {
			err = xerr
		}
		if err == nil && (*perClient < 1 || *maxTokens < 1 || *promptWords < 0 || *warmup < 0) {
			err = fmt.Errorf("-per-client and -max-tokens must be at least 1, -prompt-words and -warmup at least 0")
		}
		if err == nil {
			err = runSweep(os.Stdout, sweepConfig{
				base: strings.TrimRight(*url, "/"), model: *model, label: *label, levels: levels,
				perClient: *perClient, maxTokens: *maxTokens, chat: *chat, promptWords: *promptWords,
				ignoreEOS: *ignoreEOS, temperature: *temperature, timeout: *timeout, warmup: *warmup,
				pause: *pause, jsonOut: *jsonOut, extra: extra,
			})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "serveload:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*url, *model, *clients, *requests, *duration, *maxTokens, *stream); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

type result struct {
	status  int
	latency time.Duration
	tokens  int
	err     error
}

func run(base, model string, clients, requests int, duration time.Duration, maxTokens int, stream bool) error {
	if model == "" {
		var err error
		if model, err = firstModel(base); err != nil {
			return err
		}
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	results := make(chan result, requests)
	interval := duration * time.Duration(clients) / time.Duration(max(requests, 1))
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		n := requests / clients
		if c < requests%clients {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Stagger the clients so that the requests arrive evenly.
			next := start.Add(interval * time.Duration(c) / time.Duration(clients))
			for i := range n {
				time.Sleep(time.Until(next))
				next = next.Add(interval)
				results <- one(client, base, model, fmt.Sprintf("And it came to pass, client %d request %d,", c, i), maxTokens, stream)
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	close(results)
	codes := map[int]int{}
	var lat []time.Duration
	tokens, bad := 0, 0
	var firstErr error
	for r := range results {
		if r.err != nil {
			bad++
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		codes[r.status]++
		switch r.status {
		case 200:
			lat = append(lat, r.latency)
			tokens += r.tokens
		case 429:
		default:
			bad++
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	fmt.Printf("%d requests from %d clients in %.1f s (stream %v, max_tokens %d)\n", requests, clients, wall.Seconds(), stream, maxTokens)
	fmt.Printf("status: 200 × %d, 429 × %d, other × %d\n", codes[200], codes[429], bad)
	fmt.Printf("latency of answered requests: p50 %.0f ms, p99 %.0f ms, max %.0f ms\n", ms(pct(0.50)), ms(pct(0.99)), ms(pct(1)))
	fmt.Printf("throughput: %.1f completion tokens/s, %.1f answered requests/s\n", float64(tokens)/wall.Seconds(), float64(len(lat))/wall.Seconds())
	if bad > 0 {
		return fmt.Errorf("%d requests failed (first: %v; statuses %v)", bad, firstErr, codes)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func firstModel(base string) (string, error) {
	resp, err := http.Get(base + "/v1/models")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Data) == 0 {
		return "", fmt.Errorf("GET /v1/models: no model (%v)", err)
	}
	return out.Data[0].ID, nil
}

func one(client *http.Client, base, model, prompt string, maxTokens int, stream bool) result {
	body, _ := json.Marshal(map[string]any{
		"model": model, "messages": []any{map[string]any{"role": "user", "content": prompt}},
		"max_tokens": maxTokens, "stream": stream, "stream_options": streamOptions(stream),
	})
	t0 := time.Now()
	req, _ := http.NewRequestWithContext(context.Background(), "POST", base+"/v1/chat/completions", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	r := result{status: resp.StatusCode, latency: time.Since(t0), err: err}
	if err != nil || resp.StatusCode != 200 {
		if r.status != 429 && err == nil {
			r.err = fmt.Errorf("status %d: %s", resp.StatusCode, strings.TrimSpace(string(data)))
			r.status = 0
		}
		return r
	}
	// The usage is the last JSON object that carries one (the answer, or
	// the stream's usage chunk).
	for _, part := range strings.Split(string(data), "\n") {
		part = strings.TrimPrefix(strings.TrimSpace(part), "data: ")
		var u struct {
			Usage *struct {
				Completion int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal([]byte(part), &u) == nil && u.Usage != nil {
			r.tokens = u.Usage.Completion
		}
	}
	if stream && !strings.HasSuffix(strings.TrimSpace(string(data)), "data: [DONE]") {
		r.err, r.status = fmt.Errorf("stream did not end with [DONE]"), 0
	}
	return r
}

func streamOptions(stream bool) any {
	if !stream {
		return nil
	}
	return map[string]any{"include_usage": true}
}
