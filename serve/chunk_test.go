package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// streamedReply is what of a streamed completion must not change with
// batching: each chunk's text, tokens, logprobs and finish reason, in
// order.
func streamedReply(events []string) (string, error) {
	var b strings.Builder
	for _, e := range events {
		if e == "[DONE]" {
			break
		}
		var c struct {
			Choices []struct {
				Text         string `json:"text"`
				FinishReason string `json:"finish_reason"`
				Logprobs     *struct {
					Tokens        []string  `json:"tokens"`
					TokenLogprobs []float64 `json:"token_logprobs"`
				} `json:"logprobs"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			return "", fmt.Errorf("%w: %s", err, e)
		}
		for _, ch := range c.Choices {
			fmt.Fprintf(&b, "%q %s", ch.Text, ch.FinishReason)
			if ch.Logprobs != nil {
				fmt.Fprintf(&b, " %q %v", ch.Logprobs.Tokens, ch.Logprobs.TokenLogprobs)
			}
			b.WriteByte('\n')
		}
	}
	return b.String(), nil
}

// TestLongPromptJoinsDecodingStreams (issue 55, item 4): a request with a
// long prompt that arrives while other requests stream their replies is
// read beside them (a chunk of Config.Chunk tokens a step, with their next
// tokens: TestBatcherLongPromptInterleaves checks the steps), and every
// reply — the long prompt's and the streams' — is token for token and
// logprob for logprob the one each gets served alone.
func TestLongPromptJoinsDecodingStreams(t *testing.T) {
	srv, ts := start(t, demoSession(t), Config{Parallel: 3, Chunk: 16})
	url := ts.URL + "/v1/completions"
	streamBody := func(prompt string) string {
		return fmt.Sprintf(`{"model":%q,"prompt":%q,"max_tokens":200,"temperature":0,"logprobs":1,"stream":true}`, demoID, prompt)
	}
	streams := []string{streamBody("In the beginning"), streamBody("And God said")}
	long := fmt.Sprintf(`{"model":%q,"prompt":%q,"max_tokens":24,"temperature":0,"logprobs":1}`, demoID,
		strings.Repeat("And the earth was without form, and void; and darkness was upon the face of the deep. ", 9))
	postLong := func() (string, error) {
		resp, err := http.Post(url, "application/json", strings.NewReader(long))
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

	aloneStreams := make([]string, len(streams))
	for i, body := range streams {
		var err error
		if aloneStreams[i], err = streamedReply(stream(t, url, body)); err != nil {
			t.Fatal(err)
		}
	}
	aloneLong, err := postLong()
	if err != nil {
		t.Fatal(err)
	}
	before := srv.BatchStats()

	// The streams start; once each has sent its first token, the long
	// prompt comes.
	var (
		wg      sync.WaitGroup
		started sync.WaitGroup
		got     = make([]string, len(streams))
		errs    = make([]error, len(streams)+1)
		mu      sync.Mutex
		open    = len(streams) // streams not finished when the long reply came
		gotLong string
	)
	started.Add(len(streams))
	for i, body := range streams {
		wg.Go(func() {
			first := true
			defer func() {
				if first {
					started.Done()
				}
			}()
			resp, err := http.Post(url, "application/json", strings.NewReader(body))
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			var events []string
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				d, ok := strings.CutPrefix(sc.Text(), "data: ")
				if !ok {
					continue
				}
				events = append(events, d)
				if first {
					first = false
					started.Done()
				}
			}
			mu.Lock()
			if gotLong == "" {
				open--
			}
			mu.Unlock()
			got[i], errs[i] = streamedReply(events)
		})
	}
	wg.Go(func() {
		started.Wait()
		r, err := postLong()
		mu.Lock()
		gotLong, errs[len(streams)] = r, err
		mu.Unlock()
	})
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	for i := range streams {
		if got[i] != aloneStreams[i] {
			t.Errorf("stream %d: beside the long prompt it differs from alone:\n beside %s\n alone  %s", i, got[i], aloneStreams[i])
		}
	}
	if gotLong != aloneLong {
		t.Errorf("the long prompt's reply beside the streams differs from alone:\n beside %s\n alone  %s", gotLong, aloneLong)
	}
	after := srv.BatchStats()
	t.Logf("%d steps, %d of several conversations, %.2f a step; %d of %d streams still open when the long reply came",
		after.Steps-before.Steps, after.Batched-before.Batched,
		float64(after.Seqs-before.Seqs)/float64(max(after.Steps-before.Steps, 1)), open, len(streams))
	if after.Batched == before.Batched {
		t.Fatal("no step computed more than one conversation")
	}
}
