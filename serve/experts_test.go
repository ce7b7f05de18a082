package serve

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
	"github.com/isagi-lab/isagi/session"
)

// moeSession opens the tiny qwen3moe fixture with a ChatML template.
func moeSession(t testing.TB) *session.Session {
	t.Helper()
	s, err := session.Open(fixtures.MoE(t, fixtures.ChatML), session.Options{Settings: session.DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// routing is a response's (or a stream's) per-token routing.
type routing struct {
	IDs [][]int     `json:"ids"`
	W   [][]float64 `json:"w"`
}

func decodeRoutes(t *testing.T, v any) []routing {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out []routing
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("isagi.experts.tokens %s: %v", b, err)
	}
	return out
}

// TestExpertsExtra: isagi.experts returns every generated token's routing
// (per MoE layer, k experts and weights summing to one), the same whether
// streamed or not; isagi.expert_off switches an expert off for the
// request, and a stateless request after it has every expert again.
func TestExpertsExtra(t *testing.T) {
	root := moeSession(t)
	_, ts := start(t, root, Config{Parallel: 1})
	body := `{"model":"qwen3moe.gguf","messages":[{"role":"user","content":"the cat sat on the mat"}],"max_tokens":8,"temperature":0,"isagi":{"experts":true}}`
	code, out := post(t, ts.URL+"/v1/chat/completions", body)
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	if got := path(out, "isagi", "experts", "layers"); fmt.Sprint(got) != "[0 1]" {
		t.Errorf("layers %v, want [0 1]", got)
	}
	if path(out, "isagi", "experts", "n_expert") != float64(fixtures.MoEExperts) || path(out, "isagi", "experts", "n_expert_used") != float64(fixtures.MoEUsed) {
		t.Errorf("isagi.experts %v", path(out, "isagi", "experts"))
	}
	routes := decodeRoutes(t, path(out, "isagi", "experts", "tokens"))
	completion := int(path(out, "usage", "completion_tokens").(float64))
	if len(routes) != completion || completion == 0 {
		t.Fatalf("%d tokens routed of %d generated", len(routes), completion)
	}
	used := map[int]int{}
	for i, r := range routes {
		if len(r.IDs) != 2 || len(r.W) != 2 {
			t.Fatalf("token %d: %d layers", i, len(r.IDs))
		}
		for l := range r.IDs {
			if len(r.IDs[l]) != fixtures.MoEUsed || r.IDs[l][0] == r.IDs[l][1] {
				t.Errorf("token %d layer %d: experts %v", i, l, r.IDs[l])
			}
			var sum float64
			for _, w := range r.W[l] {
				sum += w
			}
			if math.Abs(sum-1) > 1e-3 {
				t.Errorf("token %d layer %d: weights %v sum to %v", i, l, r.W[l], sum)
			}
			for _, e := range r.IDs[l] {
				used[e]++
			}
		}
	}

	// Streamed: the chunks carry the same routing, token for token.
	events := stream(t, ts.URL+"/v1/chat/completions", strings.Replace(body, `"temperature":0`, `"temperature":0,"stream":true`, 1))
	var streamed []routing
	for _, e := range events[:len(events)-1] {
		var c map[string]any
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatal(err)
		}
		if path(c, "choices", 0, "finish_reason") != nil {
			continue // the last chunk's summary repeats them all
		}
		if x := path(c, "isagi", "experts"); x != nil {
			if fmt.Sprint(path(c, "isagi", "experts", "layers")) != "[0 1]" {
				t.Errorf("a chunk's layers %v", path(c, "isagi", "experts", "layers"))
			}
			streamed = append(streamed, decodeRoutes(t, path(c, "isagi", "experts", "tokens"))...)
		}
	}
	if len(streamed) != len(routes) {
		t.Fatalf("the stream routed %d tokens, the response %d", len(streamed), len(routes))
	}
	for i := range routes {
		if fmt.Sprint(streamed[i].IDs) != fmt.Sprint(routes[i].IDs) {
			t.Errorf("token %d: streamed experts %v, the response's %v", i, streamed[i].IDs, routes[i].IDs)
		}
	}

	// The most used expert off in every layer: never chosen.
	hot, most := 0, 0
	for e, n := range used {
		if n > most || (n == most && e < hot) {
			hot, most = e, n
		}
	}
	off := strings.Replace(body, `"experts":true`, fmt.Sprintf(`"experts":true,"expert_off":"*:%d"`, hot), 1)
	code, out = post(t, ts.URL+"/v1/chat/completions", off)
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	if fmt.Sprint(path(out, "isagi", "experts", "off")) != fmt.Sprintf("[*:%d]", hot) {
		t.Errorf("isagi.experts.off %v", path(out, "isagi", "experts", "off"))
	}
	for i, r := range decodeRoutes(t, path(out, "isagi", "experts", "tokens")) {
		for l := range r.IDs {
			if slices.Contains(r.IDs[l], hot) {
				t.Errorf("token %d layer %d chose expert %d, switched off", i, l, hot)
			}
		}
	}
	// A stateless request after it starts from every expert on.
	code, out = post(t, ts.URL+"/v1/chat/completions", body)
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	if got := decodeRoutes(t, path(out, "isagi", "experts", "tokens")); fmt.Sprint(got) != fmt.Sprint(routes) {
		t.Errorf("after a request with an expert off, the same request routes otherwise:\n%v\n%v", got, routes)
	}
	// Without isagi.experts, nothing about experts.
	code, out = post(t, ts.URL+"/v1/chat/completions", strings.Replace(body, `,"isagi":{"experts":true}`, "", 1))
	if code != 200 || path(out, "isagi", "experts") != nil {
		t.Errorf("status %d, isagi.experts %v unasked", code, path(out, "isagi", "experts"))
	}
}

// TestExpertsExtraRefused: a dense model has no experts to show or switch
// off, and a list the model cannot take is one sentence naming the field.
func TestExpertsExtraRefused(t *testing.T) {
	_, dense := start(t, demoSession(t), Config{})
	_, moe := start(t, moeSession(t), Config{})
	msgs := `"messages":[{"role":"user","content":"Hi"}],"max_tokens":2`
	for _, c := range []struct {
		url, body, param, want string
	}{
		{dense.URL, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"experts":true}}`, "isagi.experts", "this model has no experts"},
		{dense.URL, `{"model":"` + demoID + `",` + msgs + `,"isagi":{"expert_off":"1:1"}}`, "isagi.expert_off", "this model has no experts"},
		{moe.URL, `{"model":"qwen3moe.gguf",` + msgs + `,"isagi":{"expert_off":"0:9"}}`, "isagi.expert_off", "each layer has 4 experts"},
		{moe.URL, `{"model":"qwen3moe.gguf",` + msgs + `,"isagi":{"expert_off":"*:0,*:1,*:2"}}`, "isagi.expert_off", "fewer than the 2"},
		{moe.URL, `{"model":"qwen3moe.gguf",` + msgs + `,"isagi":{"expert_off":"twelve"}}`, "isagi.expert_off", "LAYER:EXPERT"},
	} {
		code, out := post(t, c.url+"/v1/chat/completions", c.body)
		msg, _ := path(out, "error", "message").(string)
		if code != 400 || path(out, "error", "param") != c.param || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %v, want 400 on %s saying %q", c.body, code, out["error"], c.param, c.want)
		}
	}
}
