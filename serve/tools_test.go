package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
	"github.com/isagi-lab/isagi/session"
)

// toolsJSON offers two tools whose arguments are bounded (enums, an empty
// object), so that even a model that knows nothing finishes a call within
// the token budget: the grammar decides the form, the model the content.
const toolsJSON = `[{"type":"function","function":{"name":"get_weather","description":"The weather in a city.","strict":true,
	"parameters":{"type":"object","properties":{"city":{"enum":["Paris","Oslo"]},"unit":{"enum":["c","f"]}},"required":["city","unit"],"additionalProperties":false}}},
	{"type":"function","function":{"name":"now","description":"The time.","parameters":{"type":"object","properties":{},"additionalProperties":false}}}]`

// checkCall says why a call is not one of toolsJSON's.
func checkCall(name, args string) error {
	var a map[string]string
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return fmt.Errorf("arguments %q: %v", args, err)
	}
	switch name {
	case "get_weather":
		if len(a) != 2 || (a["city"] != "Paris" && a["city"] != "Oslo") || (a["unit"] != "c" && a["unit"] != "f") {
			return fmt.Errorf("get_weather(%s)", args)
		}
	case "now":
		if len(a) != 0 {
			return fmt.Errorf("now(%s)", args)
		}
	default:
		return fmt.Errorf("a call of %q", name)
	}
	return nil
}

// toolSession opens the random-weight qwen2 fixture with template tmpl.
func toolSession(t testing.TB, name, tmpl string) *session.Session {
	t.Helper()
	p := fixtures.Rebuilt(t, "archs/qwen2.gguf", t.TempDir(), name+".gguf", fixtures.Change{ChatTemplate: tmpl, ContextLength: 4096})
	s, err := session.Open(p, session.Options{Settings: session.DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fixtureTemplate reads a chat template of the shared fixtures.
func fixtureTemplate(t testing.TB, file string) string {
	t.Helper()
	b, err := os.ReadFile("../../shared/fixtures/chat_templates/templates/" + file)
	if err != nil {
		t.Fatalf("chat template fixture missing (../shared/fixtures/chat_templates): %v", err)
	}
	return string(b)
}

// chatTestdata reads a template shipped by a model's makers, kept in
// engine/chat/testdata.
func chatTestdata(file string) func(testing.TB) string {
	return func(t testing.TB) string {
		b, err := os.ReadFile("../engine/chat/testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

// streamedCall is a call rebuilt from stream deltas.
type streamedCall struct{ id, name, args string }

// readToolStream rebuilds a streamed reply: its content, its calls (each
// delta checked for OpenAI's shape: the first of a call carries index, id,
// type and name, the others index and arguments only) and the
// finish_reason.
func readToolStream(t *testing.T, events []string) (string, []streamedCall, string) {
	t.Helper()
	var content strings.Builder
	var calls []streamedCall
	finish := ""
	for _, ev := range events {
		if ev == "[DONE]" {
			continue
		}
		var ch struct {
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					ToolCalls []struct {
						Index    *int    `json:"index"`
						ID       *string `json:"id"`
						Type     *string `json:"type"`
						Function struct {
							Name      *string `json:"name"`
							Arguments *string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ev), &ch); err != nil {
			t.Fatalf("chunk %s: %v", ev, err)
		}
		if len(ch.Choices) == 0 {
			continue
		}
		c := ch.Choices[0]
		if c.Delta.Content != nil {
			content.WriteString(*c.Delta.Content)
		}
		for _, tc := range c.Delta.ToolCalls {
			if tc.Index == nil {
				t.Fatalf("a tool call delta without index: %s", ev)
			}
			i := *tc.Index
			switch {
			case i == len(calls):
				if tc.ID == nil || tc.Type == nil || *tc.Type != "function" || tc.Function.Name == nil {
					t.Fatalf("the first delta of call %d lacks id, type or name: %s", i, ev)
				}
				calls = append(calls, streamedCall{id: *tc.ID, name: *tc.Function.Name})
			case i < len(calls):
				if tc.ID != nil || tc.Function.Name != nil {
					t.Fatalf("a later delta of call %d repeats id or name: %s", i, ev)
				}
			default:
				t.Fatalf("delta index %d after %d calls: %s", i, len(calls), ev)
			}
			if tc.Function.Arguments != nil {
				calls[i].args += *tc.Function.Arguments
			}
		}
		if c.FinishReason != nil {
			finish = *c.FinishReason
		}
	}
	return content.String(), calls, finish
}

// TestToolCalls: on the call syntax of each template family, a required
// or named call comes back as tool_calls that parse and keep to the
// tool's schema, with finish_reason "tool_calls", streamed (each call's
// deltas with its own index, the name first) and not, greedy and sampled;
// a tool's result goes back through the template.
func TestToolCalls(t *testing.T) {
	for _, tc := range []struct {
		name, syntax string
		tmpl         func(testing.TB) string
	}{
		{"chatml", "generic", func(testing.TB) string { return fixtures.ChatML }},
		{"qwen3", "hermes", func(t testing.TB) string { return fixtureTemplate(t, "qwen3.jinja") }},
		{"llama-3.1", "llama3", func(t testing.TB) string { return fixtureTemplate(t, "llama-3.1-instruct.jinja") }},
		{"gpt-oss", "harmony", chatTestdata("gpt-oss.jinja")},
		{"qwen2.5", "hermes", chatTestdata("qwen2.5-instruct.jinja")},
		{"mistral-nemo", "mistral", chatTestdata("mistral-nemo-instruct.jinja")},
		{"mistral-small-3.2", "mistral-args", chatTestdata("mistral-small-3.2-instruct.jinja")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := toolSession(t, tc.name, tc.tmpl(t))
			if got := root.ToolSyntax(); got != tc.syntax {
				t.Fatalf("syntax %q, want %q", got, tc.syntax)
			}
			_, ts := start(t, root, Config{ModelID: "m"})
			url := ts.URL + "/v1/chat/completions"
			msgs := `"messages":[{"role":"user","content":"What is the weather in Paris?"}]`
			for i, c := range []string{
				`"tool_choice":"required","temperature":0`,
				`"tool_choice":"required","temperature":0,"parallel_tool_calls":false`,
				`"tool_choice":"required","temperature":1,"seed":5`,
				`"tool_choice":{"type":"function","function":{"name":"now"}},"temperature":1,"seed":9`,
				`"tool_choice":{"type":"function","function":{"name":"get_weather"}},"temperature":1.2,"seed":2,"parallel_tool_calls":false`,
				`"tool_choice":"required","temperature":1,"seed":3,"stream":true`,
				`"tool_choice":"required","temperature":1,"seed":4,"stream":true,"stream_options":{"include_usage":true},"parallel_tool_calls":false`,
			} {
				body := `{"model":"m",` + msgs + `,"max_tokens":400,"tools":` + toolsJSON + `,` + c + `}`
				var calls []streamedCall
				var finish, content string
				if strings.Contains(c, `"stream":true`) {
					content, calls, finish = readToolStream(t, stream(t, url, body))
				} else {
					code, out := post(t, url, body)
					if code != 200 {
						t.Fatalf("case %d: %d %v", i, code, out)
					}
					finish, _ = path(out, "choices", 0, "finish_reason").(string)
					if s, ok := path(out, "choices", 0, "message", "content").(string); ok {
						content = s
					}
					list, _ := path(out, "choices", 0, "message", "tool_calls").([]any)
					for _, x := range list {
						m := x.(map[string]any)
						fn := m["function"].(map[string]any)
						if m["type"] != "function" {
							t.Errorf("case %d: call type %v", i, m["type"])
						}
						calls = append(calls, streamedCall{id: m["id"].(string), name: fn["name"].(string), args: fn["arguments"].(string)})
					}
				}
				// With parallel calls allowed, a model that knows nothing may
				// go on calling until the token budget ends: the calls it
				// finished keep to the schemas, the last may be cut short
				// (and, before its name, comes back as text).
				parallel := !strings.Contains(c, `"parallel_tool_calls":false`) && tc.syntax != "llama3" && tc.syntax != "harmony"
				cut := parallel && finish == "length"
				if (finish != "tool_calls" && !cut) || len(calls) == 0 {
					t.Fatalf("case %d: finish_reason %q with %d calls, content %q", i, finish, len(calls), content)
				}
				if strings.TrimSpace(content) != "" && !cut {
					t.Errorf("case %d: a required call left content %q", i, content)
				}
				ids := map[string]bool{}
				for j, call := range calls {
					if cut && j == len(calls)-1 {
						continue
					}
					if err := checkCall(call.name, call.args); err != nil {
						t.Errorf("case %d call %d: %v", i, j, err)
					}
					if ids[call.id] || call.id == "" {
						t.Errorf("case %d: call id %q empty or repeated", i, call.id)
					}
					ids[call.id] = true
					if strings.HasPrefix(tc.syntax, "mistral") && len(call.id) != 9 {
						t.Errorf("case %d: Mistral's templates take 9-character ids, got %q", i, call.id)
					}
				}
				if strings.Contains(c, `"name":"now"`) && calls[0].name != "now" {
					t.Errorf("case %d: the named call is %q", i, calls[0].name)
				}
				if strings.Contains(c, `"parallel_tool_calls":false`) && len(calls) != 1 {
					t.Errorf("case %d: %d calls without parallel calls", i, len(calls))
				}
			}

			// The call and its result go back through the template.
			back := `{"model":"m","max_tokens":4,"temperature":0,"tools":` + toolsJSON + `,"messages":[
				{"role":"user","content":"What is the weather in Paris?"},
				{"role":"assistant","content":null,"tool_calls":[{"id":"abcDEF123","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\", \"unit\": \"c\"}"}}]},
				{"role":"tool","tool_call_id":"abcDEF123","content":"18 degrees and sunny"}]}`
			code, out := post(t, url, back)
			if code != 200 {
				t.Fatalf("a tool result: %d %v", code, out)
			}
			without := `{"model":"m","max_tokens":4,"temperature":0,"messages":[{"role":"user","content":"What is the weather in Paris?"}]}`
			_, short := post(t, url, without)
			if a, b := path(out, "usage", "prompt_tokens").(float64), path(short, "usage", "prompt_tokens").(float64); a <= b {
				t.Errorf("the prompt with the call and its result is %v tokens, no longer than without them (%v)", a, b)
			}
		})
	}
}

// TestToolCallsChatDemo: the chat demo model (isagi --demo=chat), whose
// ChatML template shows no tools, makes a valid required call all the
// same (the tools described in its system message, the form held by the
// grammar).
func TestToolCallsChatDemo(t *testing.T) {
	root, err := session.OpenBytes(demo.ChatName, demo.ChatModel, session.Options{Settings: session.DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	if root.ToolSyntax() != "generic" {
		t.Fatalf("syntax %q", root.ToolSyntax())
	}
	_, ts := start(t, root, Config{ModelID: "m"})
	for i, c := range []string{`"temperature":0`, `"temperature":1,"seed":8`, `"temperature":1,"seed":9,"stream":true`} {
		body := `{"model":"m","messages":[{"role":"user","content":"Weather in Oslo?"}],"max_tokens":200,"tool_choice":"required","parallel_tool_calls":false,"tools":` + toolsJSON + `,` + c + `}`
		var calls []streamedCall
		var finish string
		if strings.Contains(c, "stream") {
			_, calls, finish = readToolStream(t, stream(t, ts.URL+"/v1/chat/completions", body))
		} else {
			code, out := post(t, ts.URL+"/v1/chat/completions", body)
			if code != 200 {
				t.Fatalf("case %d: %d %v", i, code, out)
			}
			finish, _ = path(out, "choices", 0, "finish_reason").(string)
			for _, x := range path(out, "choices", 0, "message", "tool_calls").([]any) {
				fn := x.(map[string]any)["function"].(map[string]any)
				calls = append(calls, streamedCall{name: fn["name"].(string), args: fn["arguments"].(string)})
			}
		}
		if finish != "tool_calls" || len(calls) != 1 {
			t.Fatalf("case %d: finish_reason %q with %d calls", i, finish, len(calls))
		}
		if err := checkCall(calls[0].name, calls[0].args); err != nil {
			t.Errorf("case %d: %v", i, err)
		}
	}
}

// TestToolsAuto: with tool_choice auto nothing holds the reply; whatever
// the model writes comes back (as text when it is no call), never an
// error, and the chat demo model answers a plain question in text.
func TestToolsAuto(t *testing.T) {
	root := toolSession(t, "qwen3", fixtureTemplate(t, "qwen3.jinja"))
	_, ts := start(t, root, Config{ModelID: "m"})
	for _, seed := range []int{1, 2, 3} {
		body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"Hi"}],"max_tokens":40,"temperature":1,"seed":%d,"tools":%s}`, seed, toolsJSON)
		code, out := post(t, ts.URL+"/v1/chat/completions", body)
		if code != 200 {
			t.Fatalf("seed %d: %d %v", seed, code, out)
		}
		finish, _ := path(out, "choices", 0, "finish_reason").(string)
		calls, _ := path(out, "choices", 0, "message", "tool_calls").([]any)
		if !slices.Contains([]string{"stop", "length", "tool_calls"}, finish) || (finish == "tool_calls") != (len(calls) > 0) {
			t.Errorf("seed %d: finish_reason %q with %d calls", seed, finish, len(calls))
		}
	}
}

// TestToolRequests: what a tool request may not say is one sentence naming
// its field.
func TestToolRequests(t *testing.T) {
	root := toolSession(t, "chatml", fixtures.ChatML)
	_, ts := start(t, root, Config{ModelID: "m"})
	url := ts.URL + "/v1/chat/completions"
	c := `{"model":"m","messages":[{"role":"user","content":"Hi"}],"max_tokens":2,`
	for _, tc := range []struct{ name, body, param string }{
		{"auto", c + `"tools":` + toolsJSON + `,"tool_choice":"auto"}`, ""},
		{"none", c + `"tools":` + toolsJSON + `,"tool_choice":"none"}`, ""},
		{"functions", c + `"functions":[{"name":"f","parameters":{"type":"object"}}],"function_call":{"name":"f"}}`, ""},
		{"a tool of another type", c + `"tools":[{"type":"retrieval"}]}`, "tools[0].type"},
		{"a bad name", c + `"tools":[{"type":"function","function":{"name":"a b"}}]}`, "tools[0].function.name"},
		{"a name twice", c + `"tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"a"}}]}`, "tools[1].function.name"},
		{"parameters not an object", c + `"tools":[{"type":"function","function":{"name":"a","parameters":[1]}}]}`, "tools[0].function.parameters"},
		{"a tool not offered", c + `"tools":` + toolsJSON + `,"tool_choice":{"type":"function","function":{"name":"nope"}}}`, "tool_choice"},
		{"an unknown choice", c + `"tools":` + toolsJSON + `,"tool_choice":"always"}`, "tool_choice"},
		{"required with a format", c + `"tools":` + toolsJSON + `,"tool_choice":"required","response_format":{"type":"json_object"}}`, "response_format"},
		{"required with a pattern", c + `"tools":[{"type":"function","function":{"name":"a","parameters":{"type":"object","properties":{"x":{"type":"string","pattern":"y"}}}}}],"tool_choice":"required"}`, "tools"},
		{"tool_calls on a user", `{"model":"m","messages":[{"role":"user","content":"Hi","tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"{}"}}]}],"max_tokens":2}`, "messages[0].tool_calls"},
		{"tool_calls not calls", `{"model":"m","messages":[{"role":"user","content":"Hi"},{"role":"assistant","tool_calls":{"a":1}},{"role":"user","content":"x"}],"max_tokens":2}`, "messages[1].tool_calls"},
	} {
		checkAnswer(t, tc.name, url, tc.body, tc.param)
	}
}

// jsonShape records the JSON type of every path of v ("choices.0.delta"
// → "object"); array elements share the path "[]".
func jsonShape(v any, at string, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		out[at] = "object"
		for k, e := range x {
			jsonShape(e, at+"."+k, out)
		}
	case []any:
		out[at] = "array"
		for _, e := range x {
			jsonShape(e, at+".[]", out)
		}
	case string:
		out[at] = "string"
	case float64:
		out[at] = "number"
	case bool:
		out[at] = "boolean"
	case nil:
		out[at] = "null"
	}
}

// chunkShapes sorts a stream's chunks by kind (usage, finish, a call's
// first delta, a call's arguments) and records each kind's shape: the
// envelope and choice with the delta's own text fields left out, and the
// tool call element alone.
func chunkShapes(t *testing.T, events []string) map[string]map[string]string {
	t.Helper()
	kinds := map[string]map[string]string{}
	add := func(kind string, v any) {
		if kinds[kind] == nil {
			kinds[kind] = map[string]string{}
		}
		jsonShape(v, "", kinds[kind])
	}
	for _, ev := range events {
		if ev == "[DONE]" {
			continue
		}
		var ch map[string]any
		if err := json.Unmarshal([]byte(ev), &ch); err != nil {
			t.Fatalf("chunk %s: %v", ev, err)
		}
		choices, _ := ch["choices"].([]any)
		if len(choices) == 0 {
			add("usage", ch)
			continue
		}
		choice := choices[0].(map[string]any)
		delta := choice["delta"].(map[string]any)
		calls, _ := delta["tool_calls"].([]any)
		// What OpenAI and this server put beside a call in a delta
		// differs (OpenAI folds the role into the first call's chunk):
		// the call elements are compared on their own.
		for _, c := range calls {
			kind := "call-arguments"
			if _, ok := c.(map[string]any)["id"]; ok {
				kind = "call-first"
			}
			add(kind, c)
		}
		env := map[string]any{}
		for k, v := range ch {
			if k != "choices" && k != "isagi" {
				env[k] = v
			}
		}
		env["choice"] = map[string]any{"index": choice["index"], "logprobs": choice["logprobs"], "finish_reason": choice["finish_reason"]}
		if choice["finish_reason"] != nil {
			env["delta"] = delta
			add("finish", env)
		} else {
			add("chunk", env)
		}
	}
	return kinds
}

// TestToolStreamShape replays a stream in OpenAI's documented wire format
// (testdata/openai-tool-stream.sse) and checks that every field of each
// kind of chunk comes in this server's stream too, with the same JSON
// type (a field of ours OpenAI lacks, such as "isagi", is allowed).
func TestToolStreamShape(t *testing.T) {
	raw, err := os.ReadFile("testdata/openai-tool-stream.sse")
	if err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, line := range strings.Split(string(raw), "\n") {
		if s, ok := strings.CutPrefix(line, "data: "); ok {
			recorded = append(recorded, s)
		}
	}
	want := chunkShapes(t, recorded)
	root := toolSession(t, "chatml", fixtures.ChatML)
	_, ts := start(t, root, Config{ModelID: "m"})
	body := `{"model":"m","messages":[{"role":"user","content":"Weather?"}],"max_tokens":400,"temperature":0,"stream":true,
		"stream_options":{"include_usage":true},"tool_choice":"required","parallel_tool_calls":false,"tools":` + toolsJSON + `}`
	got := chunkShapes(t, stream(t, ts.URL+"/v1/chat/completions", body))
	for kind, fields := range want {
		if got[kind] == nil {
			t.Errorf("no %s chunk in this server's stream", kind)
			continue
		}
		for p, typ := range fields {
			if got[kind][p] != typ {
				t.Errorf("%s chunk: %q is %q here, %q in OpenAI's", kind, p, got[kind][p], typ)
			}
		}
	}
}

// TestToolsDoNotOutliveTheirRequest: a required call whose request fails
// before it runs (a prompt over the window) leaves no grammar on the
// pooled conversation: the next request, a completion, answers as on a
// fresh server.
func TestToolsDoNotOutliveTheirRequest(t *testing.T) {
	root := toolSession(t, "chatml", fixtures.ChatML)
	_, ts := start(t, root, Config{ModelID: "m", Parallel: 1})
	long := strings.Repeat("word ", 5000)
	code, out := post(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"`+long+`"}],"tools":`+toolsJSON+`,"tool_choice":"required"}`)
	if code != 400 {
		t.Fatalf("an over-long prompt: %d %v", code, out)
	}
	cmpl := `{"model":"m","prompt":"The weather","max_tokens":12,"temperature":0}`
	_, after := post(t, ts.URL+"/v1/completions", cmpl)
	_, fresh := start(t, toolSession(t, "chatml2", fixtures.ChatML), Config{ModelID: "m", Parallel: 1})
	_, want := post(t, fresh.URL+"/v1/completions", cmpl)
	if a, w := path(after, "choices", 0, "text"), path(want, "choices", 0, "text"); a != w {
		t.Errorf("after a failed tool request the completion reads %q, on a fresh server %q", a, w)
	}
}
