package chat

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/grammar"
)

// readAll feeds reply to a reader in pieces of n bytes and returns the
// text, the calls and the calls as rebuilt from the deltas alone.
func readAll(s ToolSyntax, reply string, n int) (string, []ToolCall, []ToolCall) {
	r := NewToolReader(s)
	var text strings.Builder
	var rebuilt []ToolCall
	take := func(t string, ds []ToolDelta) {
		text.WriteString(t)
		for _, d := range ds {
			if d.Index == len(rebuilt) {
				rebuilt = append(rebuilt, ToolCall{ID: d.ID, Name: d.Name})
				if d.ID == "" || d.Name == "" {
					rebuilt[d.Index].Name = "<first delta without id or name>"
				}
			} else if d.ID != "" || d.Name != "" {
				rebuilt[d.Index].Name = "<id or name repeated>"
			}
			rebuilt[d.Index].Arguments += d.Arguments
		}
	}
	for i := 0; i < len(reply); i += n {
		take(r.Write(reply[i:min(i+n, len(reply))]))
	}
	take(r.Flush())
	return text.String(), r.Calls(), rebuilt
}

func TestToolReader(t *testing.T) {
	type call struct{ name, args string }
	cases := []struct {
		name  string
		s     ToolSyntax
		reply string
		text  string
		calls []call
	}{
		{"hermes one", ToolsHermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", "",
			[]call{{"get_weather", `{"city": "Paris"}`}}},
		{"hermes text then two", ToolsHermes, "Let me check.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": [1, {\"y\": \"}\"}]}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {}}\n</tool_call>", "Let me check.\n",
			[]call{{"a", `{"x": [1, {"y": "}"}]}`}, {"b", `{}`}}},
		{"hermes arguments first", ToolsHermes, `<tool_call>{"arguments": {"q": "a\"b"}, "name": "search"}</tool_call>`, "",
			[]call{{"search", `{"q": "a\"b"}`}}},
		{"hermes quoted arguments", ToolsHermes, `<tool_call>{"name": "f", "arguments": "{\"a\": 1}"}</tool_call>`, "",
			[]call{{"f", `{"a": 1}`}}},
		{"hermes no arguments", ToolsHermes, `<tool_call>{"name": "now"}</tool_call>`, "",
			[]call{{"now", `{}`}}},
		{"hermes plain text", ToolsHermes, "The weather is <b>fine</b> < 3 <tool", "The weather is <b>fine</b> < 3 <tool", nil},
		{"hermes broken before name", ToolsHermes, "<tool_call>oops</tool_call> then", "<tool_call>oops</tool_call> then", nil},
		{"hermes cut short", ToolsHermes, `<tool_call>{"name": "f", "arguments": {"a": "unfin`, "",
			[]call{{"f", `{"a": "unfin`}}},
		{"llama3 call", ToolsLlama3, ` {"name": "get_weather", "parameters": {"city": "Paris", "n": 3}}`, " ",
			[]call{{"get_weather", `{"city": "Paris", "n": 3}`}}},
		{"llama3 python tag", ToolsLlama3, `<|python_tag|>{"name": "f", "parameters": {"a": true}}`, "",
			[]call{{"f", `{"a": true}`}}},
		{"llama3 text", ToolsLlama3, `Sure. {"name": "f", "parameters": {}}`, `Sure. {"name": "f", "parameters": {}}`, nil},
		{"llama3 json not a call", ToolsLlama3, `{"answer": 42}`, `{"answer": 42}`, nil},
		{"mistral list", ToolsMistral, `[TOOL_CALLS][{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": "z"}, "id": "abcdefghi"}]`, "",
			[]call{{"a", `{"x": 1}`}, {"b", `{"y": "z"}`}}},
		{"mistral text", ToolsMistral, "No tools needed [TOOL", "No tools needed [TOOL", nil},
		{"mistral args", ToolsMistralArgs, `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]now[CALL_ID]abc123XYZ[ARGS]{}`, "",
			[]call{{"get_weather", `{"city": "Paris"}`}, {"now", `{}`}}},
		{"generic is hermes", ToolsGeneric, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1.5e3}}\n</tool_call>", "",
			[]call{{"f", `{"a": 1.5e3}`}}},
	}
	for _, c := range cases {
		for n := 1; n <= len(c.reply); n++ {
			text, calls, rebuilt := readAll(c.s, c.reply, n)
			if text != c.text {
				t.Fatalf("%s (pieces of %d): text %q, want %q", c.name, n, text, c.text)
			}
			if len(calls) != len(c.calls) || len(rebuilt) != len(c.calls) {
				t.Fatalf("%s (pieces of %d): %d calls (%d from deltas), want %d: %+v", c.name, n, len(calls), len(rebuilt), len(c.calls), calls)
			}
			for i, w := range c.calls {
				if calls[i].Name != w.name || calls[i].Arguments != w.args {
					t.Fatalf("%s (pieces of %d): call %d is %s(%s), want %s(%s)", c.name, n, i, calls[i].Name, calls[i].Arguments, w.name, w.args)
				}
				if rebuilt[i].Name != w.name || rebuilt[i].ID != calls[i].ID {
					t.Fatalf("%s (pieces of %d): deltas of call %d give %q id %q", c.name, n, i, rebuilt[i].Name, rebuilt[i].ID)
				}
				// The deltas carry the text as the model wrote it; the call
				// unquotes arguments a model gave as a string.
				if !strings.Contains(c.name, "quoted") && rebuilt[i].Arguments != w.args {
					t.Fatalf("%s (pieces of %d): deltas of call %d give arguments %q", c.name, n, i, rebuilt[i].Arguments)
				}
			}
		}
	}
}

func TestToolSyntaxOfTemplates(t *testing.T) {
	for _, c := range []struct {
		src  string
		want ToolSyntax
	}{
		{"{% for m in messages %}{{ m.content }}{% endfor %}", ToolsGeneric},
		{"{% if tools %}<tool_call>{% endif %}", ToolsHermes},
		{`{% if tools %}{"name": ..., "parameters": ...}<|python_tag|>{% endif %}`, ToolsLlama3},
		{"{% if tools %}[AVAILABLE_TOOLS]{% endif %}[TOOL_CALLS]", ToolsMistral},
		{"{% if tools %}{% endif %}[TOOL_CALLS]{{ name }}[ARGS]", ToolsMistralArgs},
		{"<|start|>{{ tools }}<|channel|>", ToolsHarmony},
	} {
		tm, err := Parse(c.src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := tm.ToolSyntax(); got != c.want {
			t.Errorf("%q: %v, want %v", c.src, got, c.want)
		}
	}
	// The shipped templates of the fixtures.
	for file, want := range map[string]ToolSyntax{
		"qwen3.jinja":                                      ToolsHermes,
		"llama-3.1-instruct.jinja":                         ToolsLlama3,
		"smollm2-instruct.jinja":                           ToolsGeneric,
		"../../../main/engine/chat/testdata/gpt-oss.jinja": ToolsHarmony,
	} {
		path := "../../../shared/fixtures/chat_templates/templates/" + file
		if strings.HasPrefix(file, "../") {
			path = "testdata/gpt-oss.jinja"
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("fixture missing: %v", err)
		}
		tm, err := Parse(string(src), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := tm.ToolSyntax(); got != want {
			t.Errorf("%s: %v, want %v", file, got, want)
		}
	}
}

// TestToolGrammar checks that the grammar of each syntax accepts the calls
// the reader reads back, and refuses a call of another tool when one is
// named.
func TestToolGrammar(t *testing.T) {
	tools := []Tool{
		{Name: "get_weather", Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}`), Strict: true},
		{Name: "now"},
	}
	calls := map[ToolSyntax][2]string{
		ToolsHermes:      {"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"},
		ToolsLlama3:      {`{"name": "get_weather", "parameters": {"city": "Paris"}}`, `{"name": "now", "parameters": {}}`},
		ToolsMistral:     {`[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]`, `[TOOL_CALLS][{"name": "now", "arguments": {}}]`},
		ToolsMistralArgs: {`[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}`, `[TOOL_CALLS]now[ARGS]{}`},
	}
	for s, pair := range calls {
		src, err := ToolGrammar(s, tools, "", false)
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		g, err := grammar.Parse(src)
		if err != nil {
			t.Fatalf("%v: %v\n%s", s, err, src)
		}
		for _, call := range pair {
			if !acceptsText(t, g, call) {
				t.Errorf("%v: the grammar refuses %q\n%s", s, call, src)
			}
			if _, calls, _ := readAll(s, call, 3); len(calls) != 1 {
				t.Errorf("%v: the reader finds %d calls in %q", s, len(calls), call)
			}
		}
		named, err := ToolGrammar(s, tools, "now", false)
		if err != nil {
			t.Fatal(err)
		}
		gn, _ := grammar.Parse(named)
		if acceptsText(t, gn, pair[0]) || !acceptsText(t, gn, pair[1]) {
			t.Errorf("%v: the grammar naming now accepts get_weather or refuses now", s)
		}
		if acceptsText(t, g, strings.Replace(pair[0], "Paris", "Paris\", \"x\": \"1", 1)) {
			t.Errorf("%v: a strict tool's grammar accepts an extra member", s)
		}
	}
	if _, err := ToolGrammar(ToolsHermes, tools, "nope", false); err == nil {
		t.Error("a grammar naming a tool that is not offered was made")
	}
	if _, err := ToolGrammar(ToolsHermes, []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}}`)}}, "", false); err == nil || !strings.Contains(err.Error(), `tool "f"`) || !strings.Contains(err.Error(), "pattern") {
		t.Errorf("a schema with a pattern: %v", err)
	}
	par, err := ToolGrammar(ToolsHermes, tools, "", true)
	if err != nil {
		t.Fatal(err)
	}
	gp, _ := grammar.Parse(par)
	if !acceptsText(t, gp, calls[ToolsHermes][0]+"\n"+calls[ToolsHermes][1]) {
		t.Error("the parallel grammar refuses two calls")
	}
}

// acceptsText matches text byte by byte on a vocabulary of single bytes.
func acceptsText(t *testing.T, g *grammar.Grammar, text string) bool {
	t.Helper()
	toks := make([][]byte, 257)
	for i := range 256 {
		toks[i] = []byte{byte(i)}
	}
	v, err := grammar.NewVocab(toks, []int32{256})
	if err != nil {
		t.Fatal(err)
	}
	m := grammar.NewMatcher(g, v)
	if m.AcceptBytes([]byte(text)) != nil {
		return false
	}
	return m.Done()
}

// FuzzToolReader: whatever a model writes, in whatever pieces, the reader
// neither panics nor loses text: a reply in which it finds no call comes
// back whole as text, and the deltas rebuild the calls.
func FuzzToolReader(f *testing.F) {
	for _, s := range []string{
		"<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n</tool_call>",
		`{"name": "f", "parameters": {"a": [1, "}"]}}`,
		`[TOOL_CALLS][{"name": "a", "arguments": {}}, {"name": "b"`,
		`[TOOL_CALLS]f[CALL_ID]x[ARGS]{"a": "\"}`,
		"plain <tool text [TOOL",
	} {
		f.Add(s, uint8(3), uint8(1))
	}
	f.Fuzz(func(t *testing.T, reply string, n, syn uint8) {
		s := ToolSyntax(syn % 5)
		text, calls, rebuilt := readAll(s, reply, int(n%16)+1)
		if len(calls) == 0 && text != reply {
			t.Fatalf("%v: no call, and the text %q is not the reply %q", s, text, reply)
		}
		if len(rebuilt) != len(calls) {
			t.Fatalf("%v: %d calls, %d from the deltas", s, len(calls), len(rebuilt))
		}
		for i := range calls {
			if rebuilt[i].Name != calls[i].Name || rebuilt[i].ID != calls[i].ID {
				t.Fatalf("%v: call %d: deltas give %q/%q, the call %q/%q", s, i, rebuilt[i].Name, rebuilt[i].ID, calls[i].Name, calls[i].ID)
			}
		}
	})
}

// TestHarmonyCalls: a gpt-oss reply's message to a function, read by a
// HarmonyReply with Calls set, is a call for the ToolReader; the chain of
// thought stays apart, and without Calls the call is shown to nobody.
func TestHarmonyCalls(t *testing.T) {
	for _, reply := range []string{
		`<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>`,
		`<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>`,
	} {
		harmonyCallsOf(t, reply)
	}
	// Straight after the prompt's "<|start|>assistant", as the grammar
	// writes it.
	for _, reply := range []string{` to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>`} {
		harmonyCallsOf(t, reply)
	}
	src, err := ToolGrammar(ToolsHarmony, []Tool{{Name: "get_weather", Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)}}, "", true)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := grammar.Parse(src)
	if !acceptsText(t, g, ` to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}`) {
		t.Errorf("the harmony grammar refuses a call\n%s", src)
	}
}

// harmonyCallsOf checks one harmony reply with a call, in pieces of every
// size.
func harmonyCallsOf(t *testing.T, reply string) {
	t.Helper()
	for n := 1; n <= len(reply); n++ {
		h := HarmonyReply{Calls: true}
		r := NewToolReader(ToolsHarmony)
		var text, thinking strings.Builder
		feed := func(a, th string) {
			thinking.WriteString(th)
			c, _ := r.Write(a)
			text.WriteString(c)
		}
		for i := 0; i < len(reply); i += n {
			feed(h.Write(reply[i:min(i+n, len(reply))]))
		}
		feed(h.Flush())
		c, _ := r.Flush()
		text.WriteString(c)
		calls := r.Calls()
		if len(calls) != 1 || calls[0].Name != "get_weather" || calls[0].Arguments != `{"city": "Paris"}` || strings.TrimSpace(text.String()) != "" || (thinking.String() != "Need weather." && strings.Contains(reply, "analysis")) {
			t.Fatalf("pieces of %d: calls %+v, text %q, thinking %q", n, calls, text.String(), thinking.String())
		}
	}
	if r, _ := ParseHarmony(reply); r != "" {
		t.Errorf("without Calls the call shows as %q", r)
	}
}

// TestShippedToolTemplates renders tools, a call and its result through
// the templates models ship (testdata; the shared fixtures' Qwen 3 and
// Llama 3.1): each is read as its family, shows the tool, and writes the
// call back in the syntax the reader reads.
func TestShippedToolTemplates(t *testing.T) {
	tools := []Tool{{Name: "get_weather", Description: "The weather in a city.", Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)}}
	call := json.RawMessage(`[{"id": "abcDEF123", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]`)
	msgs := []Message{
		{Role: "user", Content: "Weather in Paris?"},
		{Role: "assistant", Extra: []Field{{Key: "tool_calls", Value: call}}},
		{Role: "tool", Content: "18 degrees", Extra: []Field{{Key: "tool_call_id", Value: json.RawMessage(`"abcDEF123"`)}, {Key: "name", Value: json.RawMessage(`"get_weather"`)}}},
	}
	for _, c := range []struct {
		path string
		want ToolSyntax
		// the call as the template writes it back
		written string
	}{
		{"testdata/qwen2.5-instruct.jinja", ToolsHermes, `<tool_call>` + "\n" + `{"name": "get_weather", "arguments": {"city": "Paris"}}` + "\n" + `</tool_call>`},
		{"../../../shared/fixtures/chat_templates/templates/qwen3.jinja", ToolsHermes, `<tool_call>` + "\n" + `{"name": "get_weather", "arguments": {"city": "Paris"}}` + "\n" + `</tool_call>`},
		{"../../../shared/fixtures/chat_templates/templates/llama-3.1-instruct.jinja", ToolsLlama3, `{"name": "get_weather", "parameters": {"city": "Paris"}}`},
		{"testdata/mistral-nemo-instruct.jinja", ToolsMistral, `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abcDEF123"}]`},
		{"testdata/mistral-small-3.2-instruct.jinja", ToolsMistralArgs, `[TOOL_CALLS]get_weather[CALL_ID]abcDEF123[ARGS]{"city": "Paris"}`},
		{"testdata/gpt-oss.jinja", ToolsHarmony, `<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>`},
	} {
		src, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatalf("template missing: %v", err)
		}
		tm, err := Parse(string(src), map[string]string{"bos_token": "<s>", "eos_token": "</s>"})
		if err != nil {
			t.Fatal(err)
		}
		if got := tm.ToolSyntax(); got != c.want {
			t.Errorf("%s: %v, want %v", c.path, got, c.want)
		}
		p, err := tm.Render(msgs, Options{AddGenerationPrompt: true, Vars: map[string]any{"tools": ToolsVar(tools)}})
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		for _, w := range []string{"get_weather", "The weather in a city.", "18 degrees", c.written} {
			if !strings.Contains(p.Text, w) {
				t.Errorf("%s: the rendering lacks %q:\n%s", c.path, w, p.Text)
			}
		}
		if c.want == ToolsHarmony {
			continue // the reply follows "<|start|>assistant": TestHarmonyCalls reads it
		}
		if _, calls, _ := readAll(c.want, c.written, 5); len(calls) != 1 || calls[0].Name != "get_weather" || !strings.Contains(calls[0].Arguments, "Paris") {
			t.Errorf("%s: the reader finds %+v in the template's own call", c.path, calls)
		}
	}
}
