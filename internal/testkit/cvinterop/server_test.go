package cvinterop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/internal/testkit/peer"
)

// binEnv names the bin folder of the developer's own llama.cpp build, as
// for scripts/bench-peer.sh and scripts/serve-peer.sh.
const binEnv = "LLAMA_BIN"

// llamaTool returns the path of the llama.cpp program name in $LLAMA_BIN,
// and skips t with one line when LLAMA_BIN is unset or has no such
// program (the variable also serves scripts that need other targets).
func llamaTool(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv(binEnv)
	if dir == "" {
		peer.Skip(t, "LLAMA_BIN is not set: point it at the bin folder of your own native llama.cpp build (llama-server; llama-cvector-generator for the generator's test) to compare control vectors with llama.cpp")
	}
	p := filepath.Join(dir, name)
	if info, err := os.Stat(p); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		peer.Skip(t, fmt.Sprintf("LLAMA_BIN=%s has no %s: build that target of your llama.cpp build to run this test", dir, name))
	}
	return p
}

// tail keeps the last bytes a program wrote, for messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 4096

func (w *tail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*tailBytes {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (w *tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.buf
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	return string(b)
}

// server is a running llama-server on loopback.
type server struct {
	url    string
	client *http.Client
	log    *tail
}

// cleanEnv is the test's environment without LLAMA_ARG_* variables, which
// llama-server reads as flags: the flags of a comparison are its own.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LLAMA_ARG_") {
			env = append(env, kv)
		}
	}
	return env
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startServer runs llama-server on model with extra flags, bound to
// 127.0.0.1, and waits until it answers /health; it stops with the test.
// The setup is the one the archs goldens were made with: one slot, one
// thread, an f32 KV cache and no flash attention, so that ggml's sums are
// as close to the CPU engine's as they get.
func startServer(t *testing.T, bin, model string, extra ...string) *server {
	t.Helper()
	var last error
	for range 3 { // another process may take the free port before the server does
		port, err := freePort()
		if err != nil {
			t.Fatalf("finding a free loopback port: %v", err)
		}
		args := append([]string{
			"-m", model, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
			"-t", "1", "-c", "256", "-np", "1", "-b", "256", "-ub", "256",
			"-ctk", "f32", "-ctv", "f32", "-fa", "off", "--no-webui", "--no-warmup",
		}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.Env = cleanEnv()
		log := &tail{}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		stop := func() {
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		}
		s := &server{url: fmt.Sprintf("http://127.0.0.1:%d", port), client: &http.Client{Timeout: 30 * time.Second}, log: log}
		if err := s.waitUp(exited); err != nil {
			stop()
			last = err
			if strings.Contains(log.String(), "bind") {
				continue
			}
			break
		}
		t.Cleanup(stop)
		return s
	}
	t.Fatalf("llama-server %s: %v", strings.Join(extra, " "), last)
	return nil
}

func (s *server) waitUp(exited <-chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited (%v) before answering; its log ends:\n%s", err, s.log.String())
		default:
		}
		if r, err := s.client.Get(s.url + "/health"); err == nil {
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no answer on /health in 30 s; its log ends:\n%s", s.log.String())
}

// post sends req to the server's path as JSON and decodes the answer into
// resp.
func (s *server) post(path string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	r, err := s.client.Post(s.url+path, "application/json", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if r.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", path, r.Status, bytes.TrimSpace(b))
	}
	if err := json.Unmarshal(b, resp); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// tokenize is llama.cpp's tokenisation of text with BOS where the model
// asks for one.
func (s *server) tokenize(text string) ([]int32, error) {
	var r struct {
		Tokens []int32 `json:"tokens"`
	}
	err := s.post("/tokenize", map[string]any{"content": text, "add_special": true}, &r)
	return r.Tokens, err
}

// logprob is one of llama.cpp's top tokens at a step.
type logprob struct {
	ID      int32   `json:"id"`
	Logprob float64 `json:"logprob"`
}

// topN is how many of llama.cpp's most likely tokens a step reports: more
// than two, since banned tokens among them are passed over.
const topN = 16

// completion is llama-server's answer: the greedy tokens and, per step,
// the most likely tokens before sampling (log-softmax of the raw logits,
// so differences are logit margins).
type completion struct {
	Tokens []int32 `json:"tokens"`
	Probs  []struct {
		ID  int32     `json:"id"`
		Top []logprob `json:"top_logprobs"`
	} `json:"completion_probabilities"`
}

// top2 is llama.cpp's two most likely tokens at step i that are not
// banned, and the logit margin between them. When fewer than two of the
// reported tokens are allowed, second is -1 and the margin is a lower
// bound: the gap down to the last token reported (unknown, and first -1
// too, when none is allowed).
func (c *completion) top2(i int, banned map[int32]bool) (first, second int32, margin float64, exact bool) {
	first, second = -1, -1
	var a float64
	top := c.Probs[i].Top
	for _, p := range top {
		if banned[p.ID] {
			continue
		}
		if first < 0 {
			first, a = p.ID, p.Logprob
			continue
		}
		return first, p.ID, a - p.Logprob, true
	}
	return first, -1, a - top[len(top)-1].Logprob, false
}

// greedy asks for n greedy tokens after prompt: the temperature sampler
// alone at 0 keeps only the largest logit (the first on a tie, as argmax
// here), so no penalty, top-k or other sampler touches the logits; the
// banned tokens get −∞ (logit_bias false). The prompt goes as ids, so no
// BOS is added to it, and no cache is reused.
func (s *server) greedy(prompt []int32, n int, banned map[int32]bool) (completion, error) {
	var c completion
	req := map[string]any{
		"prompt": prompt, "n_predict": n, "temperature": 0, "samplers": []string{"temperature"},
		"n_probs": topN, "return_tokens": true, "cache_prompt": false, "seed": 1,
	}
	if len(banned) > 0 {
		bias := map[string]any{}
		for id := range banned {
			bias[strconv.Itoa(int(id))] = false
		}
		req["logit_bias"] = bias
	}
	if err := s.post("/completion", req, &c); err != nil {
		return c, err
	}
	if len(c.Probs) != len(c.Tokens) {
		return c, fmt.Errorf("/completion: %d tokens but probabilities for %d", len(c.Tokens), len(c.Probs))
	}
	for i := range c.Probs {
		if len(c.Probs[i].Top) == 0 {
			return c, fmt.Errorf("/completion: no top tokens at step %d", i)
		}
		if first, _, _, _ := c.top2(i, banned); first >= 0 && first != c.Tokens[i] {
			return c, errors.New("/completion: a step's most likely allowed token is not the token chosen (is sampling greedy?)")
		}
	}
	return c, nil
}
