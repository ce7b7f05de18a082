package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/session"
)

// apiErr sends body to url and returns the status and the error object.
func apiErr(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: answer is not JSON: %v", url, err)
	}
	e, _ := out["error"].(map[string]any)
	return resp.StatusCode, e
}

// goWords are what a message to a user must not hold: the decoder's and
// the runtime's own vocabulary.
var goWords = []string{"json:", "Go ", "Go value", "struct", "serve.", "unmarshal", "strconv", "not a JSON", "main.", "[]"}

// checkAnswer posts body to url and wants a 200 when param is "", else a
// 400 naming param in one sentence.
func checkAnswer(t *testing.T, name, url, body, param string) {
	t.Helper()
	code, e := apiErr(t, "POST", url, body)
	if param == "" {
		if code != 200 {
			t.Errorf("%s: %d %v, want 200", name, code, e)
		}
		return
	}
	if code != 400 || e["param"] != param {
		t.Errorf("%s: %d %v, want 400 with param %q", name, code, e, param)
		return
	}
	checkSentence(t, name, e["message"].(string))
}

func checkSentence(t *testing.T, what, msg string) {
	t.Helper()
	if msg == "" || strings.Contains(msg, "\n") || strings.Count(strings.TrimSuffix(msg, "."), ". ") > 0 {
		t.Errorf("%s: not one sentence: %q", what, msg)
	}
	for _, w := range goWords {
		if strings.Contains(msg, w) {
			t.Errorf("%s: %q holds %q", what, msg, w)
		}
	}
}

// A streamed completion's logprobs give each token the offset where its
// text starts in the prompt and reply, as the whole response does: the
// offsets run on across chunks.
func TestStreamedTextOffsets(t *testing.T) {
	_, ts := start(t, demoSession(t), Config{})
	const prompt = "In the beginning"
	body := `{"model":"` + demoID + `","prompt":"` + prompt + `","max_tokens":8,"temperature":0,"logprobs":1`
	code, out := post(t, ts.URL+"/v1/completions", body+`}`)
	if code != 200 {
		t.Fatal(out)
	}
	var want []float64
	for _, o := range path(out, "choices", 0, "logprobs", "text_offset").([]any) {
		want = append(want, o.(float64))
	}
	var got []float64
	var tokens []string
	for _, e := range stream(t, ts.URL+"/v1/completions", body+`,"stream":true}`) {
		if e == "[DONE]" {
			break
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatal(err)
		}
		offs, _ := path(c, "choices", 0, "logprobs", "text_offset").([]any)
		toks, _ := path(c, "choices", 0, "logprobs", "tokens").([]any)
		for i := range offs {
			got = append(got, offs[i].(float64))
			tokens = append(tokens, toks[i].(string))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 8 {
		t.Fatalf("streamed text_offset %v, whole response %v", got, want)
	}
	at := len(prompt)
	for i, tok := range tokens {
		if int(got[i]) != at {
			t.Fatalf("token %d %q at offset %v, want %d (offsets %v)", i, tok, got[i], at, got)
		}
		at += len(tok)
	}
}

// OpenAI's fields this server cannot honour are refused with their param
// rather than answered in plain text; those that ask for nothing pass;
// echo and the JSON response formats are done.
func TestUnsupportedFields(t *testing.T) {
	_, ts := start(t, demoSession(t), Config{})
	chat := ts.URL + "/v1/chat/completions"
	cmpl := ts.URL + "/v1/completions"
	c := `{"model":"` + demoID + `","messages":[{"role":"user","content":"Hi"}],"max_tokens":2,`
	p := `{"model":"` + demoID + `","prompt":"In the beginning","max_tokens":2,`
	for _, tc := range []struct {
		name, url, body string
		param           string // "" : accepted
	}{
		{"json_object", chat, c + `"response_format":{"type":"json_object"}}`, ""},
		{"json_schema", chat, c + `"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}}}}`, ""},
		{"json_schema on completions", cmpl, p + `"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"boolean"}}}}`, ""},
		{"json_schema without a schema", cmpl, p + `"response_format":{"type":"json_schema"}}`, "response_format.json_schema.schema"},
		{"json_schema with a pattern", chat, c + `"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"string","pattern":"a+"}}}}`, "response_format.json_schema.schema"},
		{"strict json_schema with an optional property", chat, c + `"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}}}}`, "response_format.json_schema.schema"},
		{"unknown format", chat, c + `"response_format":{"type":"yaml"}}`, "response_format.type"},
		{"format not an object", chat, c + `"response_format":"json"}`, "response_format"},
		{"text format", chat, c + `"response_format":{"type":"text"}}`, ""},
		{"tools", chat, c + `"tools":[{"type":"function","function":{"name":"f","parameters":{}}}]}`, "tools"},
		{"tools and tool_choice auto", chat, c + `"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"auto"}`, "tools"},
		{"functions", chat, c + `"functions":[{"name":"f"}]}`, "functions"},
		{"tool_choice required", chat, c + `"tool_choice":"required"}`, "tool_choice"},
		{"tool_choice a function", chat, c + `"tool_choice":{"type":"function","function":{"name":"f"}}}`, "tool_choice"},
		{"function_call", chat, c + `"function_call":{"name":"f"}}`, "function_call"},
		{"empty tools", chat, c + `"tools":[],"tool_choice":"none"}`, ""},
		{"best_of 2", cmpl, p + `"best_of":2}`, "best_of"},
		{"best_of 0", cmpl, p + `"best_of":0}`, "best_of"},
		{"best_of 1", cmpl, p + `"best_of":1}`, ""},
		{"suffix", cmpl, p + `"suffix":" and the earth"}`, "suffix"},
		{"empty suffix", cmpl, p + `"suffix":""}`, ""},
		{"echo with logprobs", cmpl, p + `"echo":true,"logprobs":2}`, "echo"},
		{"echo not a boolean", cmpl, p + `"echo":"yes"}`, "echo"},
		{"chat ignores completions' fields", chat, c + `"echo":true,"suffix":"x","best_of":3}`, ""},
	} {
		checkAnswer(t, tc.name, tc.url, tc.body, tc.param)
	}

	// echo: the prompt comes back before the reply, streamed or not.
	const prompt = "In the beginning"
	body := p + `"temperature":0,"max_tokens":6`
	code, plain := post(t, cmpl, body+`}`)
	if code != 200 {
		t.Fatal(plain)
	}
	code, echoed := post(t, cmpl, body+`,"echo":true}`)
	if code != 200 {
		t.Fatal(echoed)
	}
	reply := path(plain, "choices", 0, "text").(string)
	if got := path(echoed, "choices", 0, "text"); got != prompt+reply {
		t.Fatalf("echo: text %q, want %q", got, prompt+reply)
	}
	if fmt.Sprint(echoed["usage"]) != fmt.Sprint(plain["usage"]) {
		t.Fatalf("echo: usage %v, without echo %v", echoed["usage"], plain["usage"])
	}
	var text strings.Builder
	for _, e := range stream(t, cmpl, body+`,"echo":true,"stream":true}`) {
		if e == "[DONE]" {
			break
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatal(err)
		}
		text.WriteString(path(c, "choices", 0, "text").(string))
	}
	if text.String() != prompt+reply {
		t.Fatalf("streamed echo: %q, want %q", text.String(), prompt+reply)
	}
}

// A request body the decoder refuses is one sentence naming the field
// (with its place in arrays) and the value sent, in JSON's words.
func TestDecodeMessages(t *testing.T) {
	_, ts := start(t, demoSession(t), Config{})
	chat := ts.URL + "/v1/chat/completions"
	m := `"model":"` + demoID + `","messages":[{"role":"user","content":"Hi"}]`
	long := strings.Repeat("a", 100)
	for _, tc := range []struct {
		url, body, param, msg string
	}{
		{chat, `{` + m + `,"temperature":"abc"}`, "temperature", `"temperature" must be a number, got "abc"`},
		{chat, `{` + m + `,"n":5.5}`, "n", `"n" must be an integer, got 5.5`},
		{chat, `{` + m + `,"n":1e30}`, "n", `"n" is out of range, got 1e30`},
		{chat, `{` + m + `,"max_tokens":5.0}`, "max_tokens", `"max_tokens" must be an integer written without a decimal point or exponent, got 5.0`},
		{chat, `{` + m + `,"temperature":1e400}`, "temperature", `"temperature" is out of range, got 1e400`},
		{chat, `{` + m + `,"stream":"yes"}`, "stream", `"stream" must be true or false, got "yes"`},
		{chat, `{` + m + `,"seed":[1, 2]}`, "seed", `"seed" must be an integer, got [1,2]`},
		{chat, `{` + m + `,"temperature":{"a":"` + long + `"}}`, "temperature", `"temperature" must be a number, got an object`},
		{chat, `{` + m + `,"model":"` + long + `x"}`, "model", ""},
		{chat, `{"model":7}`, "model", `"model" must be a string, got 7`},
		{chat, `{"model":"` + demoID + `","messages":[{"role":"user","content":"Hi"},{"role":7}]}`, "messages[1].role", `"messages[1].role" must be a string, got 7`},
		{chat, `{"model":"` + demoID + `","messages":"hi"}`, "messages", `"messages" must be an array, got "hi"`},
		{chat, `{"model":"` + demoID + `","messages":["hi"]}`, "messages[0]", `"messages[0]" must be an object, got "hi"`},
		{chat, `{` + m + `,"isagi":{"rank":"x"}}`, "isagi.rank", `"isagi.rank" must be an integer, got "x"`},
		{chat, `{` + m + `,"isagi":3}`, "isagi", `"isagi" must be an object, got 3`},
		{chat, `{` + m + `,"stop":[1]}`, "stop", `"stop" must be a string or an array of strings, got [1]`},
		{chat, `{` + m + `,"logprobs":3}`, "logprobs", `"logprobs" must be true or false, got 3`},
		{chat, `{` + m + `,"temperature":"` + long + `"}`, "temperature", `"temperature" must be a number, got "` + long[:32] + `…"`},
		{chat, `[1,2]`, "", `the request body must be a JSON object, got [1,2]`},
		{chat, `"hi"`, "", `the request body must be a JSON object, got "hi"`},
		{chat, `{"model":`, "", `the request body is not valid JSON: it ends in the middle of a value`},
		{chat, `{"model" 1}`, "", `the request body is not valid JSON: unexpected '1' at byte 9`},
		{chat, `{} x`, "", `the request body must be one JSON object with nothing after it, but more follows at byte 3`},
		{chat, `{} {}`, "", ""},
		{chat, ``, "", `the request body is empty: it must be a JSON object`},
		{ts.URL + "/v1/completions", `{"model":"` + demoID + `","prompt":[1,2]}`, "prompt", `"prompt" must be a string or an array of strings (token-id arrays are not supported), got [1,2]`},
		{ts.URL + "/v1/completions", `{"model":"` + demoID + `","prompt":"x","logprobs":true}`, "logprobs", `"logprobs" must be an integer (how many alternatives per token), got true`},
		{ts.URL + "/v1/embeddings", `{"model":"` + demoID + `","input":null}`, "input", ""},
		{ts.URL + "/v1/embeddings", `{"model":"` + demoID + `","input":{"a":1}}`, "input", `"input" must be a string or an array of strings (token-id arrays are not supported), got {"a":1}`},
		{ts.URL + "/isagi/v1/hidden", `{"text":"x","layers":[0,"1"]}`, "layers[1]", `"layers[1]" must be an integer, got "1"`},
	} {
		code, e := apiErr(t, "POST", tc.url, tc.body)
		msg, _ := e["message"].(string)
		param, _ := e["param"].(string)
		if code != 400 && code != 404 || param != tc.param || (tc.msg != "" && msg != tc.msg) {
			t.Errorf("%s: %d param %q %q\nwant param %q %q", tc.body, code, param, msg, tc.param, tc.msg)
		}
		checkSentence(t, tc.body, msg)
	}
}

// GET /health answers as llama-server's does, without the API key.
func TestHealth(t *testing.T) {
	_, ts := start(t, demoSession(t), Config{APIKey: "sesame"})
	for _, p := range []string{"/health", "/v1/health"} {
		resp, err := http.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != `{"status":"ok"}` || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: %d %q %s", p, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
	}
	if code, e := apiErr(t, "POST", ts.URL+"/health", ``); code != 405 {
		t.Fatalf("POST /health: %d %v", code, e)
	}
	// The key still guards the rest.
	if code, _ := apiErr(t, "GET", ts.URL+"/v1/models", ``); code != 401 {
		t.Fatalf("models without a key: %d", code)
	}
}

// CORS is off unless asked for; then the one origin (or any, with *)
// gets the headers and its preflights answered, before the key check.
func TestCORS(t *testing.T) {
	root := demoSession(t)
	do := func(url, method, origin string, preflight bool) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, url, nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if preflight {
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, x-stainless-os")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	const page = "http://localhost:3000"
	_, off := start(t, root, Config{})
	if r := do(off.URL+"/v1/models", "GET", page, false); r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("CORS off: %d, allow-origin %q", r.StatusCode, r.Header.Get("Access-Control-Allow-Origin"))
	}
	if r := do(off.URL+"/v1/chat/completions", "OPTIONS", page, true); r.StatusCode != 403 {
		t.Fatalf("CORS off, preflight: %d", r.StatusCode)
	}

	_, one := start(t, root, Config{CORSOrigin: page + "/", APIKey: "sesame"})
	r := do(one.URL+"/v1/chat/completions", "OPTIONS", page, true)
	h := r.Header
	if r.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != page || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "authorization") || h.Get("Vary") != "Origin" {
		t.Fatalf("preflight: %d %v", r.StatusCode, h)
	}
	if r := do(one.URL+"/v1/chat/completions", "OPTIONS", "http://evil.example", true); r.StatusCode != 403 || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("preflight from another origin: %d %v", r.StatusCode, r.Header)
	}
	// The request itself: the key is still needed; the headers come on the
	// 401 too, so that the page can read why.
	if r := do(one.URL+"/v1/models", "GET", page, false); r.StatusCode != 401 || r.Header.Get("Access-Control-Allow-Origin") != page {
		t.Fatalf("request from the origin: %d %v", r.StatusCode, r.Header)
	}
	if r := do(one.URL+"/v1/models", "GET", "http://evil.example", false); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("request from another origin: %v", r.Header)
	}

	_, any := start(t, root, Config{CORSOrigin: "*"})
	if r := do(any.URL+"/v1/models", "GET", "http://elsewhere.example:8080", false); r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("CORS *: %d %v", r.StatusCode, r.Header)
	}
	for _, bad := range []string{"localhost:3000", "http://x/path", "ftp://x", "http://", "**"} {
		if _, err := New(root, Config{CORSOrigin: bad}); err == nil {
			t.Errorf("origin %q accepted", bad)
		}
	}
}

// A max_tokens beyond the window is lowered to what room there is, and
// the response says so in isagi.notes, streamed or not.
func TestMaxTokensClamped(t *testing.T) {
	root := demoSession(t)
	_, ts := start(t, root, Config{})
	_, window := root.Conversation().ContextUsed()
	body := `{"model":"` + demoID + `","prompt":"In the beginning","max_tokens":100000,"temperature":0`
	code, out := post(t, ts.URL+"/v1/completions", body+`}`)
	if code != 200 {
		t.Fatal(out)
	}
	notes, _ := path(out, "isagi", "notes").([]any)
	prompt := int(path(out, "usage", "prompt_tokens").(float64))
	if len(notes) != 1 || !strings.Contains(notes[0].(string), "max_tokens 100000 was lowered to "+fmt.Sprint(window-prompt)) {
		t.Fatalf("notes %v (window %d, prompt %d)", notes, window, prompt)
	}
	if n := int(path(out, "usage", "completion_tokens").(float64)); n > window-prompt || (path(out, "choices", 0, "finish_reason") == "length" && n != window-prompt) {
		t.Fatalf("%d tokens (%v) in a window of %d with a prompt of %d", n, path(out, "choices", 0, "finish_reason"), window, prompt)
	}
	events := stream(t, ts.URL+"/v1/completions", body+`,"stream":true}`)
	if !strings.Contains(events[len(events)-2], `"notes":["max_tokens 100000 was lowered`) {
		t.Fatalf("last chunk: %s", events[len(events)-2])
	}
	// Without the clamp there is no note.
	if code, out := post(t, ts.URL+"/v1/completions", strings.Replace(body, "100000", "2", 1)+`}`); code != 200 || path(out, "isagi", "notes") != nil {
		t.Fatalf("max_tokens 2: %d %v", code, out["isagi"])
	}
}

// logBuf is a log destination the test reads while the server writes.
type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// wait returns the log once it holds want, failing after a while.
func (l *logBuf) wait(t *testing.T, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		s := l.b.String()
		l.mu.Unlock()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log has no %q:\n%s", want, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// 4xx answers, 429 included, are logged with their message; a client that
// hangs up is logged as such, waiting or mid-stream.
func TestRequestLog(t *testing.T) {
	var buf logBuf
	srv, ts := start(t, demoSession(t), Config{Parallel: 1, Queue: 1, APIKey: "k", Log: log.New(&buf, "", 0)})
	send := func(ctx context.Context, body string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer k")
		return http.DefaultClient.Do(req)
	}
	msgs := `"model":"` + demoID + `","messages":[{"role":"user","content":"Hi"}]`
	resp, err := send(context.Background(), `{`+msgs+`,"temperature":"abc"}`)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	buf.wait(t, `POST /v1/chat/completions from 127.0.0.1:`)
	buf.wait(t, `: 400 (temperature) "temperature" must be a number, got "abc"`)
	if code, _ := apiErr(t, "GET", ts.URL+"/v1/models", ``); code != 401 {
		t.Fatal(code)
	}
	buf.wait(t, `GET /v1/models from 127.0.0.1:`)
	buf.wait(t, `: 401 an API key is required`)

	// A full server: 429, then a client that gives up while queued.
	srv.slots <- struct{}{}
	srv.wait <- struct{}{}
	resp, err = send(context.Background(), `{`+msgs+`}`)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	buf.wait(t, ": 429 the server is busy")
	<-srv.wait
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(srv.wait) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := send(ctx, `{`+msgs+`}`); err == nil {
		t.Fatal("the request went through a full server")
	}
	buf.wait(t, "the client hung up while waiting in the queue")
	<-srv.slots

	// Mid-stream: after the first chunk (the model is this request's),
	// the test takes the model at the next token, hangs up, gives it
	// back.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	resp, err = send(ctx, `{`+msgs+`,"stream":true}`)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	if !sc.Scan() {
		t.Fatal("no first chunk")
	}
	if err := srv.turn.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	time.Sleep(50 * time.Millisecond)
	srv.turn.release()
	buf.wait(t, "the client hung up after ")
}

// A body that comes too slowly is cut off with a 408 after BodyTimeout;
// the deadline is lifted once the body is in, so a response may take
// longer than it.
func TestSlowBody(t *testing.T) {
	srv, ts := start(t, demoSession(t), Config{BodyTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"` + demoID + `","prompt":"In the beginning","max_tokens":2}`
	fmt.Fprintf(conn, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:10])
	began := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 408 || !strings.Contains(string(b), "did not arrive within the server's limit of 300ms") || time.Since(began) > 5*time.Second {
		t.Fatalf("stalled body: %d after %v: %s", resp.StatusCode, time.Since(began), b)
	}

	// A stream that outlasts the body's limit: the model is held for
	// longer than it before the generation may start.
	if err := srv.turn.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(900 * time.Millisecond)
		srv.turn.release()
	}()
	events := stream(t, ts.URL+"/v1/completions", `{"model":"`+demoID+`","prompt":"In the beginning","max_tokens":4,"stream":true}`)
	if len(events) == 0 || events[len(events)-1] != "[DONE]" {
		t.Fatalf("a stream beyond the body's limit was cut: %q", events)
	}
}

// dyingBackend is the CPU backend failing for good once killed, as a
// remote backend does when its server dies.
type dyingBackend struct {
	backend.Backend
	dead *atomic.Bool
}

func (d dyingBackend) Err() error {
	if d.dead.Load() {
		return errors.New("rpc server 127.0.0.1:1 closed the connection")
	}
	return nil
}

func (d dyingBackend) Share() (backend.Backend, error) {
	b, err := d.Backend.Share()
	return dyingBackend{b, d.dead}, err
}

// TestHealthDeadBackend: once the backend has failed for good, a
// generation says so with 503 and /health stops saying ok.
func TestHealthDeadBackend(t *testing.T) {
	var dead atomic.Bool
	root, err := session.OpenBytes(demo.Name, demo.Model, session.Options{Settings: session.DefaultSettings(),
		Backend: func(int) (backend.Backend, error) { return dyingBackend{cpu.New(nil), &dead}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	_, ts := start(t, root, Config{})
	body := `{"model":"` + demo.Name + `","prompt":"And God said","max_tokens":4,"temperature":0}`
	if code, e := apiErr(t, "POST", ts.URL+"/v1/completions", body); code != 200 {
		t.Fatalf("a completion on a working backend: %d %v", code, e)
	}
	if code, _ := apiErr(t, "GET", ts.URL+"/health", ``); code != 200 {
		t.Fatalf("/health on a working backend: %d", code)
	}
	dead.Store(true)
	for i := 0; i < 2; i++ {
		code, e := apiErr(t, "POST", ts.URL+"/v1/completions", body)
		if msg, _ := e["message"].(string); code != 503 || !strings.Contains(msg, "restart isagi") {
			t.Fatalf("completion %d after the backend died: %d %v", i, code, e)
		}
	}
	code, e := apiErr(t, "GET", ts.URL+"/health", ``)
	if msg, _ := e["message"].(string); code != 503 || !strings.Contains(msg, "127.0.0.1:1") {
		t.Fatalf("/health after the backend died: %d %v", code, e)
	}
}

// TestDrainFinishesStreams: a shutdown (Drain) ends a stream in progress
// with its final chunk and [DONE] — finish_reason set, isagi.stop
// "shutdown" — instead of cutting it; a request after it gets a 503.
func TestDrainFinishesStreams(t *testing.T) {
	srv, ts := start(t, demoSession(t), Config{})
	body := `{"model":"` + demoID + `","prompt":"In the beginning","max_tokens":200,"temperature":0,"stream":true}`
	// The test takes the server's turn between two tokens of the reply,
	// so that the reply is surely in progress when the server drains —
	// whatever the machine's load: it holds the turn before the request,
	// lets the request have it once the request waits for it, and queues
	// at once behind it; the request hands the turn over while its prompt
	// is computed (the batch's step), and then waits to handle its first
	// token while the test drains. (Taking the turn after reading the
	// first chunk raced the demo model's 200 tokens, some 50 ms, on a
	// loaded machine.)
	ctx := context.Background()
	if err := srv.turn.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	type posted struct {
		resp *http.Response
		err  error
	}
	got := make(chan posted, 1)
	go func() {
		resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(body))
		got <- posted{resp, err}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		srv.turn.mu.Lock()
		queued := len(srv.turn.waiters) > 0
		srv.turn.mu.Unlock()
		if queued {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request never waited for the model")
		}
	}
	srv.turn.release()
	if err := srv.turn.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	p := <-got
	if p.err != nil {
		t.Fatal(p.err)
	}
	resp := p.resp
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	srv.Drain()
	srv.turn.release()
	var last map[string]any
	done := false
	for sc.Scan() {
		line := sc.Text()
		if line == "data: [DONE]" {
			done = true
			break
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			if err := json.Unmarshal([]byte(data), &last); err != nil {
				t.Fatalf("chunk %q: %v", data, err)
			}
		}
	}
	if !done {
		t.Fatal("the stream ended without [DONE]")
	}
	choices, _ := last["choices"].([]any)
	if len(choices) != 1 || choices[0].(map[string]any)["finish_reason"] != "length" {
		t.Errorf("final chunk %v: want finish_reason length", last)
	}
	if ext, _ := last["isagi"].(map[string]any); ext == nil || ext["stop"] != "shutdown" {
		t.Errorf("final chunk %v: want isagi.stop shutdown", last)
	}
	code, e := apiErr(t, "POST", ts.URL+"/v1/completions", strings.Replace(body, `"stream":true`, `"stream":false`, 1))
	if code != 503 || !strings.Contains(fmt.Sprint(e["message"]), "shutting down") {
		t.Errorf("a request after Drain: %d %v", code, e)
	}
}
