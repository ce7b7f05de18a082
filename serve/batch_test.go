package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestBatchedRepliesEqualAlone: mixed requests served at once — prompts of
// different lengths, a Snipe projector, KV-cache eviction, a stop sequence,
// an OGD step, per-request steering, a stream, with a client that hangs up mid-reply among them —
// get, token for token at temperature 0, the replies each gets served
// alone; and the server's steps did compute several conversations at once.
func TestBatchedRepliesEqualAlone(t *testing.T) {
	root := calibrated(t, demoSession(t))
	cat := root.Geometry().Profile().Categories[0].Name
	srv, ts := start(t, root, Config{Parallel: 8})
	req := func(prompt string, maxTok int, ext string) string {
		if ext != "" {
			ext = `,"isagi":{` + ext + `}`
		}
		return fmt.Sprintf(`{"model":%q,"prompt":%q,"max_tokens":%d,"temperature":0,"logprobs":1%s}`, demoID, prompt, maxTok, ext)
	}
	long := strings.Repeat("And the earth was without form, and void; and darkness was upon the face of the deep. ", 6)
	bodies := []string{
		req("In the beginning", 40, ""),
		req(long, 24, ""),
		req("And God said", 30, fmt.Sprintf(`"snipe":[%q]`, cat)),
		req("Let there be light", 36, `"kv_keep":0.5`),
		req("And the evening and the morning", 30, `"ogd_alpha":0.5`),
		strings.Replace(req("And God saw the light", 40, ""), `"temperature":0`, `"temperature":0,"stop":["God"]`, 1),
		req("The LORD is my shepherd", 28, ""),
		// Steered per request (a profile category's direction), one of
		// them on two layers only: each its own, batched with the rest.
		req("In the beginning", 40, fmt.Sprintf(`"steer":[{"vector":%q,"scale":40}]`, cat)),
		req("And God said", 30, fmt.Sprintf(`"steer":[{"vector":%q,"scale":-40,"layers":[1,2]}]`, cat)),
	}
	steered := len(bodies) - 2 // its prompt is bodies[0]'s
	answer := func(body string) (string, error) {
		resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(body))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var b strings.Builder
		if _, err := bufio.NewReader(resp.Body).WriteTo(&b); err != nil {
			return "", err
		}
		if resp.StatusCode != 200 {
			return "", fmt.Errorf("status %d: %s", resp.StatusCode, b.String())
		}
		return reply(b.String())
	}
	alone := make([]string, len(bodies))
	for i, body := range bodies {
		var err error
		if alone[i], err = answer(body); err != nil {
			t.Fatalf("request %d alone: %v", i, err)
		}
	}
	if alone[steered] == alone[0] {
		t.Fatalf("isagi.steer left the reply as it was: %q", alone[0])
	}
	before := srv.BatchStats()

	got := make([]string, len(bodies))
	errs := make([]error, len(bodies))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, body := range bodies {
		wg.Go(func() {
			<-start
			got[i], errs[i] = answer(body)
		})
	}
	// A client that hangs up after its first tokens, while the others run.
	wg.Go(func() {
		<-start
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		body := strings.Replace(req("Blessed is the man", 200, ""), `"temperature":0`, `"temperature":0,"stream":true`, 1)
		r, err := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/completions", strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Error(err)
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for n := 0; n < 4 && sc.Scan(); n++ {
		}
		cancel()
	})
	close(start)
	wg.Wait()
	for i := range bodies {
		if errs[i] != nil {
			t.Fatalf("request %d batched: %v", i, errs[i])
		}
		if got[i] != alone[i] {
			t.Errorf("request %d: batched reply differs from alone:\n batched %s\n alone   %s", i, got[i], alone[i])
		}
	}
	after := srv.BatchStats()
	t.Logf("%d steps, %d computed more than one conversation, %.2f conversations a step",
		after.Steps-before.Steps, after.Batched-before.Batched, float64(after.Seqs-before.Seqs)/float64(max(after.Steps-before.Steps, 1)))
	if after.Batched == before.Batched {
		t.Fatal("no step computed more than one conversation")
	}
	// The server still answers alone as before.
	if again, err := answer(bodies[0]); err != nil || again != alone[0] {
		t.Fatalf("after the batch: %q, %v; want %q", again, err, alone[0])
	}
}

// reply is what of a completion's answer must not change with batching:
// its text, finish reason, token count and each token's logprob entry.
func reply(body string) (string, error) {
	var out struct {
		Choices []struct {
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
			Logprobs     struct {
				Tokens        []string  `json:"tokens"`
				TokenLogprobs []float64 `json:"token_logprobs"`
			} `json:"logprobs"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		return "", err
	}
	if len(out.Choices) != 1 {
		return "", fmt.Errorf("%d choices: %s", len(out.Choices), body)
	}
	c := out.Choices[0]
	return fmt.Sprintf("%q %s %d %q %v", c.Text, c.FinishReason, out.Usage.CompletionTokens, c.Logprobs.Tokens, c.Logprobs.TokenLogprobs), nil
}
