package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
	"github.com/isagi-lab/isagi/internal/testkit/quickprofile"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
)

const demoID = "kjv-tiny-llama-5.8M"

// demoSession opens the embedded demo model (completion mode).
func demoSession(t testing.TB) *session.Session {
	t.Helper()
	s, err := session.OpenBytes(demo.Name, demo.Model, session.Options{Settings: session.DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// chatSession opens a random-weight qwen2 fixture with a ChatML template:
// the chat path on a real forward pass (its words mean nothing).
func chatSession(t testing.TB) *session.Session {
	t.Helper()
	p := fixtures.Rebuilt(t, "archs/qwen2.gguf", t.TempDir(), "qwen2-chat.gguf", fixtures.Change{ChatTemplate: fixtures.ChatML})
	s, err := session.Open(p, session.Options{Settings: session.DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// calibrated gives s a quickly calibrated geometry profile: on the demo
// the figures mean nothing, but every mechanism runs.
func calibrated(t testing.TB, s *session.Session) *session.Session {
	t.Helper()
	p := quickprofile.Calibrate(t, s.Geometry().CalibrationSource())
	var err error
	if p.Model, err = s.Probe().Ref(); err != nil {
		t.Fatal(err)
	}
	if err := s.Geometry().Set(p); err != nil {
		t.Fatal(err)
	}
	return s
}

func start(t testing.TB, root *session.Session, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := New(root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return srv, ts
}

// post sends body as JSON and decodes the JSON answer.
func post(t testing.TB, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: answer is not JSON: %v", url, err)
	}
	return resp.StatusCode, out
}

// stream sends body and returns the data events of the SSE answer.
func stream(t testing.TB, url, body string) []string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, d)
		}
	}
	return events
}

func path(m map[string]any, keys ...any) any {
	var v any = m
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			mm, _ := v.(map[string]any)
			v = mm[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// Greedy text through the API is the session's own greedy text, streamed
// or not, in chat and completion mode; usage counts the tokens.
func TestGreedyMatchesSession(t *testing.T) {
	for _, tc := range []struct {
		name string
		root func(testing.TB) *session.Session
		id   string
	}{{"demo", demoSession, demoID}, {"chat", chatSession, "qwen2-chat.gguf"}} {
		t.Run(tc.name, func(t *testing.T) {
			root := tc.root(t)
			_, ts := start(t, root, Config{Parallel: 2})
			// The reference: a session of its own, greedy, 10 tokens.
			ref, err := root.Fork(0, session.Settings{Temperature: 0, MaxTokens: 10, RepeatPenalty: 1})
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.SendNoMemory(context.Background(), "And God said", func(session.Event) {})
			if err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"And God said"}],"max_tokens":10,"temperature":0}`, tc.id)
			code, out := post(t, ts.URL+"/v1/chat/completions", body)
			if code != 200 {
				t.Fatalf("status %d: %v", code, out)
			}
			got := path(out, "choices", 0, "message", "content")
			// JSON carries only valid UTF-8: a lone byte token's byte comes
			// as U+FFFD, as every OpenAI server sends it.
			wantText := strings.ToValidUTF8(want.Text, "\uFFFD")
			if got != wantText {
				t.Fatalf("API text %q, session text %q", got, want.Text)
			}
			completion := path(out, "usage", "completion_tokens").(float64)
			stopTok := 0
			if want.Stop == "stop token" {
				stopTok = 1
			}
			if int(completion) != want.Tokens-stopTok || path(out, "usage", "total_tokens").(float64) != completion+path(out, "usage", "prompt_tokens").(float64) {
				t.Fatalf("usage %v for %d tokens (%s)", out["usage"], want.Tokens, want.Stop)
			}
			events := stream(t, ts.URL+"/v1/chat/completions", strings.Replace(body, `"temperature":0`, `"temperature":0,"stream":true,"stream_options":{"include_usage":true}`, 1))
			if events[len(events)-1] != "[DONE]" {
				t.Fatalf("stream does not end with [DONE]: %q", events[len(events)-1])
			}
			var text strings.Builder
			finishes := 0
			var usage any
			for _, e := range events[:len(events)-1] {
				var c map[string]any
				if err := json.Unmarshal([]byte(e), &c); err != nil {
					t.Fatal(err)
				}
				if s, ok := path(c, "choices", 0, "delta", "content").(string); ok {
					text.WriteString(s)
				}
				if path(c, "choices", 0, "finish_reason") != nil {
					finishes++
				}
				if u := c["usage"]; u != nil {
					usage = u
				}
			}
			if text.String() != got || finishes != 1 {
				t.Fatalf("streamed %q with %d finish reasons, want %q and 1", text.String(), finishes, got)
			}
			if fmt.Sprint(usage) != fmt.Sprint(out["usage"]) {
				t.Fatalf("streamed usage %v, want %v", usage, out["usage"])
			}
		})
	}
}

// Logprobs are the model's softmax: the greedy token is the top one, the
// alternatives come in order, and their probabilities sum to at most 1.
func TestLogprobs(t *testing.T) {
	_, ts := start(t, demoSession(t), Config{})
	code, out := post(t, ts.URL+"/v1/chat/completions", `{"model":"`+demoID+`","messages":[{"role":"user","content":"In the beginning"}],"max_tokens":8,"temperature":0,"logprobs":true,"top_logprobs":5}`)
	if code != 200 {
		t.Fatal(out)
	}
	content := path(out, "choices", 0, "logprobs", "content").([]any)
	if len(content) != int(path(out, "usage", "completion_tokens").(float64)) {
		t.Fatalf("%d entries for %v", len(content), out["usage"])
	}
	var joined strings.Builder
	for i, e := range content {
		e := e.(map[string]any)
		top := e["top_logprobs"].([]any)
		if len(top) != 5 {
			t.Fatalf("entry %d: %d alternatives", i, len(top))
		}
		first := top[0].(map[string]any)
		if first["token"] != e["token"] || math.Abs(first["logprob"].(float64)-e["logprob"].(float64)) > 1e-9 {
			t.Fatalf("entry %d: greedy token %v is not the top one %v", i, e, first)
		}
		var mass float64
		prev := 0.0
		for j, a := range top {
			lp := a.(map[string]any)["logprob"].(float64)
			if lp > 0 || (j > 0 && lp > prev) {
				t.Fatalf("entry %d: alternatives out of order or positive: %v", i, top)
			}
			prev = lp
			mass += math.Exp(lp)
		}
		if mass > 1+1e-9 {
			t.Fatalf("entry %d: top-5 mass %v", i, mass)
		}
		joined.WriteString(e["token"].(string))
	}
	if joined.String() != path(out, "choices", 0, "message", "content") {
		t.Fatalf("tokens %q, content %q", joined.String(), path(out, "choices", 0, "message", "content"))
	}
	// A completion's logprobs are the parallel arrays of the old API.
	code, out = post(t, ts.URL+"/v1/completions", `{"model":"`+demoID+`","prompt":"In the beginning","max_tokens":4,"temperature":0,"logprobs":2}`)
	if code != 200 || len(path(out, "choices", 0, "logprobs", "tokens").([]any)) != 4 || len(path(out, "choices", 0, "logprobs", "top_logprobs", 0).(map[string]any)) != 2 {
		t.Fatalf("completion logprobs: %d %v", code, out)
	}
}

// The stop sequences cut the reply before the first one, however the text
// arrives in pieces, and nothing after it is sent.
func TestStopper(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "ab c"
	for trial := range 3000 {
		var text strings.Builder
		for range rng.IntN(30) {
			text.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		var stops []string
		for range 1 + rng.IntN(3) {
			var st strings.Builder
			for range 1 + rng.IntN(3) {
				st.WriteByte(alphabet[rng.IntN(len(alphabet))])
			}
			stops = append(stops, st.String())
		}
		full := text.String()
		var pieces []string
		for rest := full; rest != ""; {
			n := 1 + rng.IntN(len(rest))
			pieces, rest = append(pieces, rest[:n]), rest[n:]
		}
		// The reference: generation stops after the first piece whose
		// text so far holds a stop sequence, and the reply ends before the
		// earliest one in it.
		want, wantHit := full, false
		for k := range pieces {
			sofar := strings.Join(pieces[:k+1], "")
			cut := -1
			for _, st := range stops {
				if i := strings.Index(sofar, st); i >= 0 && (cut < 0 || i < cut) {
					cut = i
				}
			}
			if cut >= 0 {
				want, wantHit = sofar[:cut], true
				break
			}
		}
		s := newStopper(stops)
		var got strings.Builder
		hit := false
		for _, p := range pieces {
			out, h := s.add(p)
			got.WriteString(out)
			if hit = h; hit {
				break
			}
		}
		if !hit {
			got.WriteString(s.flush())
		}
		if got.String() != want || hit != wantHit || s.text() != want {
			t.Fatalf("trial %d: %q stops %q: sent %q (hit %v, text %q), want %q (hit %v)", trial, full, stops, got.String(), hit, s.text(), want, wantHit)
		}
	}
}

// Every bad request is a 4xx with OpenAI's error shape and one sentence,
// and leaves the server answering.
func TestBadRequests(t *testing.T) {
	root := demoSession(t)
	_, ts := start(t, root, Config{MaxBody: 4096})
	chat := ts.URL + "/v1/chat/completions"
	msgs := `"messages":[{"role":"user","content":"Hi"}]`
	long := strings.Repeat("and the LORD said ", 200)
	cases := []struct {
		name, method, url, body string
		status                  int
		param                   string
	}{
		{"malformed JSON", "POST", chat, `{"model":`, 400, ""},
		{"not an object", "POST", chat, `[1,2]`, 400, ""},
		{"empty body", "POST", chat, ``, 400, ""},
		{"two values", "POST", chat, `{} {}`, 400, ""},
		{"wrong type", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"temperature":"hot"}`, 400, "temperature"},
		{"wrong type in a message", "POST", chat, `{"model":"` + demoID + `","messages":[{"role":7}]}`, 400, "messages[0].role"},
		{"stop of numbers", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"stop":[1]}`, 400, ""},
		{"body over the cap", "POST", chat, `{"model":"` + demoID + `","messages":[{"role":"user","content":"` + long + long + `"}]}`, 413, ""},
		{"no model", "POST", chat, `{` + msgs + `}`, 400, "model"},
		{"unknown model", "POST", chat, `{"model":"gpt-9",` + msgs + `}`, 404, "model"},
		{"no messages", "POST", chat, `{"model":"` + demoID + `","messages":[]}`, 400, "messages"},
		{"unknown role", "POST", chat, `{"model":"` + demoID + `","messages":[{"role":"wizard","content":"x"}]}`, 400, "messages[0].role"},
		{"image part", "POST", chat, `{"model":"` + demoID + `","messages":[{"role":"user","content":[{"type":"image_url"}]}]}`, 400, "messages[0].content"},
		{"n=2", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"n":2}`, 400, "n"},
		{"temperature 3", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"temperature":3}`, 400, "temperature"},
		{"max_tokens 0", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"max_tokens":0}`, 400, "max_tokens"},
		{"prompt over the context", "POST", chat, `{"model":"` + demoID + `","messages":[{"role":"user","content":"` + long[:3000] + `"}]}`, 400, "messages"},
		{"top_logprobs without logprobs", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"top_logprobs":3}`, 400, "top_logprobs"},
		{"top_logprobs 50", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"logprobs":true,"top_logprobs":50}`, 400, "top_logprobs"},
		{"projector without a profile", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"snipe":["toxicity"]}}`, 400, "isagi"},
		{"bad session id", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"session_id":"../etc"}}`, 400, "isagi.session_id"},
		{"save without a session", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"save":true}}`, 400, "isagi.session_id"},
		{"save without a directory", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"session_id":"a","save":true}}`, 400, "isagi.save"},
		{"rank beyond the width", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"rank":100000}}`, 400, "isagi.rank"},
		{"bad slots", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"rank":8,"slots":"wings"}}`, 400, "isagi.slots"},
		{"bad alloc", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"rank":8,"alloc":"lottery"}}`, 400, "isagi.alloc"},
		{"steer with no name", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"steer":[{"vector":""}]}}`, 400, "isagi.steer[0]"},
		{"steer by path", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"steer":[{"vector":"../../etc/x"}]}}`, 400, "isagi.steer[0]"},
		{"steer by an unknown name", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"steer":[{"vector":"nosuch"}]}}`, 400, "isagi.steer"},
		{"steer layers backwards", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"steer":[{"vector":"x","layers":[3,1]}]}}`, 400, "isagi.steer[0]"},
		{"steer layers of one", "POST", chat, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"steer":[{"vector":"x","layers":[3]}]}}`, 400, "isagi.steer[0]"},
		{"GET on a POST endpoint", "GET", chat, ``, 405, ""},
		{"unknown endpoint", "GET", ts.URL + "/v1/nothing", ``, 404, ""},
		{"completion without a prompt", "POST", ts.URL + "/v1/completions", `{"model":"` + demoID + `"}`, 400, "prompt"},
		{"token-id prompt", "POST", ts.URL + "/v1/completions", `{"model":"` + demoID + `","prompt":[1,2]}`, 400, ""},
		{"embeddings of nothing", "POST", ts.URL + "/v1/embeddings", `{"model":"` + demoID + `","input":[]}`, 400, "input"},
		{"embeddings format", "POST", ts.URL + "/v1/embeddings", `{"model":"` + demoID + `","input":"x","encoding_format":"hex"}`, 400, "encoding_format"},
		{"hidden without layers", "POST", ts.URL + "/isagi/v1/hidden", `{"text":"x"}`, 400, "layers"},
		{"hidden layer out of range", "POST", ts.URL + "/isagi/v1/hidden", `{"text":"x","layers":[99]}`, 400, ""},
		{"hidden ugt without a profile", "POST", ts.URL + "/isagi/v1/hidden", `{"text":"x","ugt":true}`, 400, "ugt"},
		{"hidden over the cap", "POST", ts.URL + "/isagi/v1/hidden", `{"text":"` + long[:1500] + `","layers":[0,1,2,3,-1]}`, 400, ""},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, c.url, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Error struct {
				Message string  `json:"message"`
				Type    string  `json:"type"`
				Param   *string `json:"param"`
			} `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != c.status || out.Error.Message == "" || out.Error.Type == "" {
			t.Errorf("%s: status %d, error %+v (%v); want %d", c.name, resp.StatusCode, out.Error, err, c.status)
			continue
		}
		if c.param != "" && (out.Error.Param == nil || *out.Error.Param != c.param) {
			t.Errorf("%s: param %v, want %q (%s)", c.name, out.Error.Param, c.param, out.Error.Message)
		}
		if strings.Count(strings.TrimSuffix(out.Error.Message, "."), ". ") > 0 || strings.Contains(out.Error.Message, "\n") {
			t.Errorf("%s: not one sentence: %q", c.name, out.Error.Message)
		}
	}
	// Still answering.
	if code, out := post(t, chat, `{"model":"`+demoID+`",`+msgs+`,"max_tokens":2}`); code != 200 {
		t.Fatalf("after the bad requests: %d %v", code, out)
	}
}

// A non-loopback server needs its key; a wrong or missing key is a 401.
func TestAPIKey(t *testing.T) {
	_, ts := start(t, demoSession(t), Config{APIKey: "sesame"})
	for key, want := range map[string]int{"": 401, "Bearer nope": 401, "Bearer sesame": 200,
		// Only the Bearer scheme carries the key (any case, extra spaces).
		"sesame": 401, "Basic sesame": 401, "Basic c2VzYW1l": 401, "bearer sesame": 200, "Bearer  sesame ": 200, "Bearer": 401} {
		req, _ := http.NewRequest("GET", ts.URL+"/v1/models", nil)
		if key != "" {
			req.Header.Set("Authorization", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Error struct{ Message string } `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("key %q: status %d, want %d", key, resp.StatusCode, want)
		}
		if want == 401 && (out.Error.Message == "" || strings.Contains(out.Error.Message, "sesame") || strings.Contains(out.Error.Message, "c2VzYW1l")) {
			t.Errorf("key %q: message %q (empty, or repeating the credentials)", key, out.Error.Message)
		}
	}
}

// With every slot generating and the queue full, a request gets 429 with
// Retry-After at once; a session answering gets 409.
func TestBusy(t *testing.T) {
	srv, ts := start(t, demoSession(t), Config{Parallel: 1, Queue: 1})
	srv.slots <- struct{}{}
	srv.wait <- struct{}{}
	resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"`+demoID+`","messages":[{"role":"user","content":"Hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	<-srv.wait
	<-srv.slots
	code, _ := post(t, ts.URL+"/v1/chat/completions", `{"model":"`+demoID+`","messages":[{"role":"user","content":"Hi"}],"max_tokens":2,"isagi":{"session_id":"s1"}}`)
	if code != 200 {
		t.Fatal(code)
	}
	srv.mu.Lock()
	srv.named["s1"].Value.(*named).busy = true
	srv.mu.Unlock()
	code, out := post(t, ts.URL+"/v1/chat/completions", `{"model":"`+demoID+`","messages":[{"role":"user","content":"Hi"}],"max_tokens":2,"isagi":{"session_id":"s1"}}`)
	if code != 409 {
		t.Fatalf("busy session: %d %v", code, out)
	}
}

// 32 clients stream at once, a quarter of them hanging up after their
// first chunk: every other stream completes, and afterwards the
// goroutines, the slots and the conversations are all back.
func TestConcurrentStreamsWithDisconnects(t *testing.T) {
	srv, ts := start(t, demoSession(t), Config{Parallel: 4, Queue: 64})
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			body := fmt.Sprintf(`{"model":%q,"prompt":"And it came to pass %d","max_tokens":24,"temperature":0.8,"seed":%d,"stream":true}`, demoID, i, i)
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/completions", strings.NewReader(body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			chunks, done, finish := 0, false, false
			for sc.Scan() {
				line := sc.Text()
				if !strings.HasPrefix(line, "data: ") {
					continue
				}
				chunks++
				if i%4 == 0 && chunks == 1 {
					cancel() // hang up mid-stream
					return
				}
				if line == "data: [DONE]" {
					done = true
				} else if strings.Contains(line, `"finish_reason":"`) {
					finish = true
				}
			}
			if !done || !finish {
				errs <- fmt.Errorf("client %d: %d chunks, done %v, finish %v", i, chunks, done, finish)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		free := len(srv.slots) == 0 && len(srv.idle) == 4
		if n <= before+2 && free {
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines %d (before %d), slots taken %d, idle conversations %d\n%s", n, before, len(srv.slots), len(srv.idle), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.turn.mu.Lock()
	held, waiting := srv.turn.held, len(srv.turn.waiters)
	srv.turn.mu.Unlock()
	if held || waiting != 0 {
		t.Fatalf("the model is still held (%v) or waited for (%d)", held, waiting)
	}
}

// A session keeps its conversation and knobs across requests and saves as
// a .miku file another session can load.
func TestSessionSaves(t *testing.T) {
	dir := t.TempDir()
	root := chatSession(t)
	_, ts := start(t, root, Config{SessionDir: dir})
	body := `{"model":"qwen2-chat.gguf","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello"}],"max_tokens":4,"temperature":0,"isagi":{"session_id":"talk-1","save":true}}`
	code, out := post(t, ts.URL+"/v1/chat/completions", body)
	if code != 200 {
		t.Fatal(out)
	}
	saved, _ := path(out, "isagi", "saved").(string)
	if saved == "" || path(out, "isagi", "session_id") != "talk-1" {
		t.Fatalf("isagi %v", out["isagi"])
	}
	if _, err := os.Stat(saved); err != nil {
		t.Fatal(err)
	}
	// Again: the file is the session's own, so it is saved over.
	if code, out = post(t, ts.URL+"/v1/chat/completions", body); code != 200 {
		t.Fatal(out)
	}
	other, err := root.Fork(0, session.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Files().Load(context.Background(), saved, session.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	tr := other.Conversation().Transcript()
	if len(tr) != 3 || tr[0].Role != "system" || tr[1].Content != "Hello" || tr[2].Role != "assistant" {
		t.Fatalf("loaded transcript %+v", tr)
	}
	// The same conversation sent again regenerated its reply: one message,
	// two versions of the reply. A client that edits the message starts a
	// branch beside it; the saved file holds all three.
	edited := strings.Replace(body, `"content":"Hello"`, `"content":"Good morning"`, 1)
	if code, out = post(t, ts.URL+"/v1/chat/completions", edited); code != 200 {
		t.Fatal(out)
	}
	var md bytes.Buffer
	if err := session.ExportFile(&md, saved, session.ExportJSONL, true); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(md.String()), "\n"); len(lines) != 3 || !strings.Contains(lines[2], "Good morning") {
		t.Fatalf("the saved tree's branches:\n%s", md.String())
	}
}

// With a geometry profile, each token carries its TEH reading (overall and
// per category) and the response the thresholds; a projector is set per
// request; an unknown one is refused; a session serves a repeated request
// from memory; the UGT coordinates come back.
func TestGeometryExtensions(t *testing.T) {
	root := calibrated(t, demoSession(t))
	p := root.Geometry().Profile()
	_, ts := start(t, root, Config{})
	cat := p.Categories[0].Name
	body := fmt.Sprintf(`{"model":%q,"prompt":"And God said","max_tokens":6,"temperature":0,"isagi":{"snipe":[%q]}}`, demoID, cat)
	code, out := post(t, ts.URL+"/v1/completions", body)
	if code != 200 {
		t.Fatal(out)
	}
	tokens := path(out, "isagi", "teh", "tokens").([]any)
	if len(tokens) != 6 || path(out, "isagi", "teh", "tau", "categories", cat) == nil || path(out, "isagi", "snipe", 0) != cat {
		t.Fatalf("isagi %v", out["isagi"])
	}
	if _, ok := path(tokens[0].(map[string]any), "categories", cat).(float64); !ok {
		t.Fatalf("token reading %v", tokens[0])
	}
	events := stream(t, ts.URL+"/v1/completions", strings.Replace(body, `"temperature":0`, `"temperature":0,"stream":true`, 1))
	if !strings.Contains(events[0], `"teh":{"categories"`) {
		t.Fatalf("first chunk has no reading: %s", events[0])
	}
	code, out = post(t, ts.URL+"/v1/completions", strings.Replace(body, cat, "no-such-category", 1))
	if code != 400 || !strings.Contains(path(out, "error", "message").(string), "no-such-category") {
		t.Fatalf("unknown projector: %d %v", code, out)
	}
	long := strings.Repeat("and the LORD said ", 100)
	code, out = post(t, ts.URL+"/isagi/v1/hidden", `{"text":"`+long+`","ugt":true}`)
	if code != 400 {
		t.Fatalf("ugt over the context: %d %v", code, out)
	}
	code, out = post(t, ts.URL+"/isagi/v1/hidden", `{"text":"In the beginning","ugt":true}`)
	if code != 200 || int(path(out, "ugt", "k").(float64)) != p.K || len(path(out, "ugt", "coords").([]any)) != len(out["tokens"].([]any)) {
		t.Fatalf("ugt: %d %v", code, out)
	}
}

// The residual stream comes back at the layers asked, one row per token;
// embeddings are unit vectors, and base64 carries the same floats.
func TestHiddenAndEmbeddings(t *testing.T) {
	root := demoSession(t)
	_, ts := start(t, root, Config{})
	code, out := post(t, ts.URL+"/isagi/v1/hidden", `{"text":"In the beginning","layers":[0,-1]}`)
	if code != 200 {
		t.Fatal(out)
	}
	n := len(out["tokens"].([]any))
	for i, l := range out["layers"].([]any) {
		rows := l.(map[string]any)["states"].([]any)
		if len(rows) != n || len(rows[0].([]any)) != root.Probe().Dim() {
			t.Fatalf("layer %d: %d rows of %d, want %d of %d", i, len(rows), len(rows[0].([]any)), n, root.Probe().Dim())
		}
	}
	code, out = post(t, ts.URL+"/v1/embeddings", `{"model":"`+demoID+`","input":["the LORD is my shepherd","and God said"]}`)
	if code != 200 {
		t.Fatal(out)
	}
	var vecs [][]float64
	for _, d := range out["data"].([]any) {
		var v []float64
		var norm float64
		for _, x := range d.(map[string]any)["embedding"].([]any) {
			v = append(v, x.(float64))
			norm += x.(float64) * x.(float64)
		}
		if len(v) != root.Probe().Dim() || math.Abs(norm-1) > 1e-4 {
			t.Fatalf("embedding of %d values, norm² %v", len(v), norm)
		}
		vecs = append(vecs, v)
	}
	_, b64 := post(t, ts.URL+"/v1/embeddings", `{"model":"`+demoID+`","input":"the LORD is my shepherd","encoding_format":"base64"}`)
	raw, err := base64.StdEncoding.DecodeString(path(b64, "data", 0, "embedding").(string))
	if err != nil || len(raw) != 4*root.Probe().Dim() {
		t.Fatalf("base64 embedding: %v, %d bytes", err, len(raw))
	}
	for j := range root.Probe().Dim() {
		if f := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])); f != float32(vecs[0][j]) {
			t.Fatalf("value %d: base64 %v, float %v", j, f, vecs[0][j])
		}
	}
}

// A GRC rank not built is refused under --no-build and built otherwise;
// the response names the plan in force.
func TestRankPerRequest(t *testing.T) {
	root := demoSession(t)
	_, ts := start(t, root, Config{NoBuild: true})
	body := `{"model":"` + demoID + `","prompt":"And God said","max_tokens":3,"temperature":0,"isagi":{"rank":32}}`
	if code, out := post(t, ts.URL+"/v1/completions", body); code != 409 {
		t.Fatalf("no-build: %d %v", code, out)
	}
	_, ts2 := start(t, root, Config{})
	code, out := post(t, ts2.URL+"/v1/completions", body)
	if code != 200 || path(out, "isagi", "grc", "rank") != 32.0 {
		t.Fatalf("rank 32: %d %v", code, out["isagi"])
	}
	// Built once, it is served without building by the first server too.
	if code, out := post(t, ts.URL+"/v1/completions", body); code != 200 {
		t.Fatalf("built rank under no-build: %d %v", code, out)
	}
	// The next stateless request on the same pooled conversation does not
	// inherit the rank; a session keeps it until told otherwise.
	code, out = post(t, ts2.URL+"/v1/completions", strings.Replace(body, `,"isagi":{"rank":32}`, ``, 1))
	if code != 200 || path(out, "isagi", "grc") != nil {
		t.Fatalf("stateless after rank 32: %d %v", code, out["isagi"])
	}
	chat := `{"model":"` + demoID + `","messages":[{"role":"user","content":"And God said"}],"max_tokens":3,"temperature":0,"isagi":{"session_id":"r"%s}}`
	for i, ext := range []string{`,"rank":32`, ``, `,"rank":0`} {
		code, out = post(t, ts2.URL+"/v1/chat/completions", fmt.Sprintf(chat, ext))
		if want := i < 2; code != 200 || (path(out, "isagi", "grc") != nil) != want {
			t.Fatalf("session request %d (%s): %d %v", i, ext, code, out["isagi"])
		}
	}
}

// FuzzDecodeRequest: no request body makes the decoder or the validation
// panic; whatever they refuse is a 4xx with a message.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"stop":["a","b"],"logprobs":true,"top_logprobs":2}`,
		`{"model":"m","prompt":["x"],"logprobs":3,"stream":true,"stream_options":{"include_usage":true}}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"}]}],"isagi":{"rank":4,"snipe":[],"session_id":"x"}}`,
		`{"temperature":1e400}`, `{"n":null}`, `[]`, `"`,
		`{"n":5.5,"temperature":"abc"}`, `{"messages":[{"role":"user"},{"role":[1]}]}`, `{"isagi":{"snipe":[1]}}`, ` {"a":[{"b":{}}], "layers":[0,"x"]}`,
		`{"response_format":{"type":"json_object"},"tools":[{}],"tool_choice":{"type":"function"},"echo":true,"suffix":"s","best_of":2}`,
		`{"prompt":"x","echo":true,"logprobs":1}`, `{"stop":{"a":1}}`, `{} x`, "{\"a\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	srv, err := New(demoSession(f), Config{ModelID: "m"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, isChat := range []bool{true, false} {
			var req genRequest
			if e := decodeJSON(data, &req); e != nil {
				if e.Status < 400 || e.Status >= 500 || e.Message == "" {
					t.Fatalf("decode: %+v", e)
				}
				// The decoder's own words never reach the client.
				for _, w := range []string{"json:", "Go value", "struct", "serve.", "unmarshal", "not a JSON"} {
					if strings.Contains(e.Message, w) && !strings.Contains(string(data), w) {
						t.Fatalf("decode: %q holds %q", e.Message, w)
					}
				}
				continue
			}
			if _, e := srv.parse(&req, isChat); e != nil && (e.Status < 400 || e.Status >= 500 || e.Message == "") {
				t.Fatalf("parse: %+v", e)
			}
		}
		var er embeddingsRequest
		_ = decodeJSON(data, &er)
		var hr hiddenRequest
		_ = decodeJSON(data, &hr)
	})
}

// TestKVKeepPerRequest: isagi.kv_keep turns eviction on for a request, the
// response says what the cache kept, a stateless request after it does
// not inherit it, and bad values are refused naming the field.
func TestKVKeepPerRequest(t *testing.T) {
	root := demoSession(t)
	_, ts := start(t, root, Config{})
	text := strings.Repeat("And God said, Let there be light: and there was light. ", 12)
	body := `{"model":"` + demoID + `","prompt":"` + text + `","max_tokens":60,"temperature":0,"isagi":{"kv_keep":0.25,"kv_scorer":"KeyDiff"}}`
	code, out := post(t, ts.URL+"/v1/completions", body)
	if code != 200 || path(out, "isagi", "kv", "scorer") != "keydiff" || path(out, "isagi", "kv", "keep") != 0.25 {
		t.Fatalf("kv_keep 0.25: %d %v", code, out["isagi"])
	}
	if ev, _ := path(out, "isagi", "kv", "evicted").(float64); ev <= 0 {
		t.Fatalf("nothing evicted from %v positions: %v", path(out, "isagi", "kv", "positions"), out["isagi"])
	}
	code, out = post(t, ts.URL+"/v1/completions", strings.Replace(body, `,"isagi":{"kv_keep":0.25,"kv_scorer":"KeyDiff"}`, ``, 1))
	if code != 200 || path(out, "isagi", "kv") != nil {
		t.Fatalf("stateless after kv_keep: %d %v", code, out["isagi"])
	}
	for _, bad := range []string{`{"kv_keep":0}`, `{"kv_keep":1.5}`, `{"kv_scorer":"snapkv"}`} {
		b := strings.Replace(body, `{"kv_keep":0.25,"kv_scorer":"KeyDiff"}`, bad, 1)
		if code, out := post(t, ts.URL+"/v1/completions", b); code != 400 || !strings.Contains(fmt.Sprint(out), "isagi.kv_") {
			t.Errorf("%s: %d %v", bad, code, out)
		}
	}
}

// TestSessionSavesClientKnobsOnly: a named session saved after a request
// that set no max_tokens keeps its own max_tokens, not the room the server
// gave that one reply; one that set it keeps the client's.
func TestSessionSavesClientKnobsOnly(t *testing.T) {
	dir := t.TempDir()
	root := chatSession(t)
	_, ts := start(t, root, Config{SessionDir: dir})
	knob := func(body string) int {
		t.Helper()
		code, out := post(t, ts.URL+"/v1/chat/completions", body)
		if code != 200 {
			t.Fatal(out)
		}
		saved, _ := path(out, "isagi", "saved").(string)
		f, err := miku.Read(saved)
		if err != nil {
			t.Fatal(err)
		}
		var k struct {
			MaxTokens int `json:"max_tokens"`
		}
		if err := json.Unmarshal(f.Header.Knobs, &k); err != nil {
			t.Fatal(err)
		}
		return k.MaxTokens
	}
	msgs := `"messages":[{"role":"user","content":"Hello"}]`
	if got, want := knob(`{"model":"qwen2-chat.gguf",`+msgs+`,"temperature":0,"isagi":{"session_id":"k1","save":true}}`), session.DefaultSettings().MaxTokens; got != want {
		t.Errorf("no max_tokens in the request: the file says %d, want the session's %d", got, want)
	}
	if got := knob(`{"model":"qwen2-chat.gguf",` + msgs + `,"max_tokens":7,"temperature":0,"isagi":{"session_id":"k2","save":true}}`); got != 7 {
		t.Errorf("max_tokens 7 in the request: the file says %d", got)
	}
}
