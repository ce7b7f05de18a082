package serve

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/session"
)

// formatSchema bounds every value (a boolean, a small integer, an enum,
// an array of at most three enums), so that even a model that knows
// nothing of JSON finishes a document within the token budget: the
// grammar decides the form, the model only the content.
const formatSchema = `{"type":"object","properties":{
	"ok":{"type":"boolean"},
	"n":{"type":"integer"},
	"colour":{"enum":["red","green","blue"]},
	"tags":{"type":"array","items":{"enum":["a","b"]},"maxItems":3},
	"note":{"type":["null","boolean"]}
},"required":["ok","n","colour","tags","note"],"additionalProperties":false}`

// checkFormat says why text is not a document of formatSchema.
func checkFormat(text string) error {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"colour", "n", "note", "ok", "tags"}) {
		return fmt.Errorf("members %v", keys)
	}
	var ok bool
	var n json.Number
	var colour string
	var tags []string
	var note *bool
	dec := func(raw json.RawMessage, v any) error {
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		return d.Decode(v)
	}
	if err := dec(doc["ok"], &ok); err != nil {
		return fmt.Errorf("ok: %v", err)
	}
	if err := dec(doc["n"], &n); err != nil || strings.ContainsAny(n.String(), ".eE") {
		return fmt.Errorf("n %s is not an integer", doc["n"])
	}
	if err := dec(doc["colour"], &colour); err != nil || !slices.Contains([]string{"red", "green", "blue"}, colour) {
		return fmt.Errorf("colour %s", doc["colour"])
	}
	if err := dec(doc["tags"], &tags); err != nil || len(tags) > 3 {
		return fmt.Errorf("tags %s", doc["tags"])
	}
	for _, tg := range tags {
		if tg != "a" && tg != "b" {
			return fmt.Errorf("tags %s", doc["tags"])
		}
	}
	if err := dec(doc["note"], &note); err != nil {
		return fmt.Errorf("note %s", doc["note"])
	}
	return nil
}

// TestResponseFormat: on both demo models — the kjv text model through
// completions and a chat model through chat completions — a json_schema
// reply is a document of the schema (strict and not, greedy and sampled,
// streamed and not) that ends with the stop token, and a json_object reply
// that ends is an object.
func TestResponseFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		root func(testing.TB) *session.Session
		url  string
		body func(format string, extra string) string
	}{
		{"kjv completions", demoSession, "/v1/completions", func(f, x string) string {
			return fmt.Sprintf(`{"model":%q,"prompt":"And God said","max_tokens":200,"response_format":%s%s}`, demoID, f, x)
		}},
		{"chat", chatSession, "/v1/chat/completions", func(f, x string) string {
			return `{"model":"qwen2-chat","messages":[{"role":"user","content":"Describe the sky."}],"max_tokens":200,"response_format":` + f + x + `}`
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tc.root(t)
			_, ts := start(t, root, Config{ModelID: "qwen2-chat"})
			if tc.name != "chat" {
				_, ts = start(t, root, Config{})
			}
			schema := `{"type":"json_schema","json_schema":{"name":"x","schema":` + formatSchema + `}}`
			strict := `{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":` + formatSchema + `}}`
			for i, c := range []struct{ format, extra string }{
				{schema, `,"temperature":0`},
				{strict, `,"temperature":0`},
				{schema, `,"temperature":1,"seed":7`},
				{strict, `,"temperature":1.5,"seed":11`},
				{schema, `,"temperature":1,"seed":3,"stream":true`},
			} {
				var text, finish string
				if strings.Contains(c.extra, `"stream":true`) {
					var b strings.Builder
					for _, ev := range stream(t, ts.URL+tc.url, tc.body(c.format, c.extra)) {
						if ev == "[DONE]" {
							continue
						}
						var ch map[string]any
						if err := json.Unmarshal([]byte(ev), &ch); err != nil {
							t.Fatal(err)
						}
						if s, ok := path(ch, "choices", 0, "text").(string); ok {
							b.WriteString(s)
						}
						if s, ok := path(ch, "choices", 0, "delta", "content").(string); ok {
							b.WriteString(s)
						}
						if s, ok := path(ch, "choices", 0, "finish_reason").(string); ok {
							finish = s
						}
					}
					text = b.String()
				} else {
					code, out := post(t, ts.URL+tc.url, tc.body(c.format, c.extra))
					if code != 200 {
						t.Fatalf("case %d: %d %v", i, code, out)
					}
					text, _ = path(out, "choices", 0, "text").(string)
					if s, ok := path(out, "choices", 0, "message", "content").(string); ok {
						text = s
					}
					finish, _ = path(out, "choices", 0, "finish_reason").(string)
				}
				if finish != "stop" {
					t.Errorf("case %d: finish_reason %q after %q", i, finish, text)
				}
				if err := checkFormat(strings.TrimSpace(text)); err != nil {
					t.Errorf("case %d: %q is not a document of the schema: %v", i, text, err)
				}
			}
			// json_object: an object whenever the reply ends.
			code, out := post(t, ts.URL+tc.url, tc.body(`{"type":"json_object"}`, `,"temperature":0`))
			if code != 200 {
				t.Fatalf("json_object: %d %v", code, out)
			}
			text, _ := path(out, "choices", 0, "text").(string)
			if s, ok := path(out, "choices", 0, "message", "content").(string); ok {
				text = s
			}
			if f, _ := path(out, "choices", 0, "finish_reason").(string); f == "stop" {
				var obj map[string]any
				if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &obj); err != nil {
					t.Errorf("json_object reply %q: %v", text, err)
				}
			} else if !strings.HasPrefix(strings.TrimSpace(text), "{") {
				t.Errorf("json_object reply cut at the limit does not start an object: %q", text)
			}
		})
	}
}
