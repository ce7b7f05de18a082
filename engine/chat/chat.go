// Package chat renders a model's chat template (the Jinja text a GGUF file
// carries in tokenizer.chat_template) into the prompt the model was trained
// on, byte for byte as Hugging Face transformers does.
//
// The template engine is a small Jinja interpreter written for this
// purpose, following Python Jinja2's semantics (the ones transformers uses,
// with trim_blocks and lstrip_blocks on): str.strip(chars), Python's
// whitespace set, ” != false, None/True/False printing, namespace(), loop
// controls, strftime_now. Writing it here rather than using a general
// engine buys two things: exact Python behaviour where the Go engines
// differ, and taint tracking: every byte of the rendered prompt that came
// from a message is known, so the tokenizer can refuse to turn user-typed
// "<|im_end|>" into a control token (see tokenizer.EncodePrompt).
//
// Replies of a model trained on OpenAI's harmony format (gpt-oss) come in
// channels: HarmonyReply tells the answer from the chain of thought.
package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// ErrNoTemplate reports a model without tokenizer.chat_template: it runs
// in plain completion mode.
var ErrNoTemplate = errors.New("model has no chat template")

// KeyChatTemplate is the GGUF key holding the template.
const KeyChatTemplate = "tokenizer.chat_template"

// Message is one turn of a conversation.
type Message struct {
	// The JSON names are the lower-case ones every other JSON of ours
	// (and every chat API) uses; files written before they were named
	// still read, since decoding matches names without regard to case.
	Role    string `json:"role"`
	Content string `json:"content"`
	// Extra holds further keys of the message (reasoning_content,
	// tool_calls, name, …) as JSON values, in order.
	Extra []Field `json:"extra,omitempty"`
}

// Field is one extra key of a Message.
type Field struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// ParseMessages reads a conversation file: a JSON list of objects with
// "role" and "content" (a string) and any further keys.
func ParseMessages(data []byte) ([]Message, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("chat: conversation must be a JSON list of {role, content}: %w", err)
	}
	msgs := make([]Message, 0, len(raw))
	for i, r := range raw {
		v, err := decodeJSON(r, true)
		if err != nil {
			return nil, fmt.Errorf("chat: message %d: %w", i, err)
		}
		d, ok := v.(*dict)
		if !ok {
			return nil, fmt.Errorf("chat: message %d is not an object", i)
		}
		var m Message
		for _, k := range d.keys {
			switch val := d.m[k]; {
			case k == "role" && isStr(val):
				m.Role = val.(str).s
			case k == "content" && isStr(val):
				m.Content = val.(str).s
			default:
				var sb bytes.Buffer
				if err := json.Compact(&sb, rawField(r, k)); err != nil {
					return nil, fmt.Errorf("chat: message %d key %q: %w", i, k, err)
				}
				m.Extra = append(m.Extra, Field{k, sb.Bytes()})
			}
		}
		if m.Role == "" {
			return nil, fmt.Errorf("chat: message %d has no role", i)
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

func isStr(v any) bool { _, ok := v.(str); return ok }

// rawField returns the raw JSON of key k in object r.
func rawField(r json.RawMessage, k string) json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(r, &m)
	return m[k]
}

// Template is a parsed chat template with the special-token texts it is
// rendered with. It is immutable and safe for concurrent use.
type Template struct {
	src   string
	nodes []node
	// Tokens maps variables such as "bos_token" and "eos_token" to their
	// texts, as transformers passes special_tokens_map; a token the model
	// lacks is left undefined.
	tokens map[string]string
}

// Parse parses template source. tokens are the special-token variables
// (bos_token, eos_token, …) the template may reference.
func Parse(src string, tokens map[string]string) (*Template, error) {
	nodes, err := parseTemplate(src)
	if err != nil {
		return nil, fmt.Errorf("chat template: %w", err)
	}
	t := &Template{src: src, nodes: nodes, tokens: map[string]string{}}
	for k, v := range tokens {
		t.tokens[k] = v
	}
	return t, nil
}

// FromGGUF parses f's tokenizer.chat_template, with bos_token and
// eos_token taken from tk. It returns ErrNoTemplate when the file has none.
func FromGGUF(f *gguf.File, tk *tokenizer.Tokenizer) (*Template, error) {
	if _, ok := f.Lookup(KeyChatTemplate); !ok {
		return nil, fmt.Errorf("%s: %w", f.Path, ErrNoTemplate)
	}
	src, err := f.String(KeyChatTemplate)
	if err != nil {
		return nil, fmt.Errorf("chat: %w", err)
	}
	t, err := ForTokenizer(src, tk)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	return t, nil
}

// ForTokenizer parses template source for a model with tokenizer tk, giving
// it the special-token variables (bos_token, eos_token) the model defines.
// It is how a template file given by the user replaces the model's own.
func ForTokenizer(src string, tk *tokenizer.Tokenizer) (*Template, error) {
	tokens := map[string]string{}
	if id := tk.BOS(); id >= 0 {
		tokens["bos_token"] = tk.Piece(id)
	}
	if id := tk.EOS(); id >= 0 {
		tokens["eos_token"] = tk.Piece(id)
	}
	return Parse(src, tokens)
}

// Source returns the template text.
func (t *Template) Source() string { return t.src }

// Options controls a rendering.
type Options struct {
	// AddGenerationPrompt appends the header that opens the assistant's
	// turn.
	AddGenerationPrompt bool
	// Vars are extra variables (date_string, enable_thinking, tools, …) as
	// JSON-like Go values: nil, bool, int, float64, string, []any,
	// map[string]any, json.RawMessage. Their strings count as user content.
	Vars map[string]any
	// Now is the time strftime_now() formats (gpt-oss and Llama 3.x
	// templates print today's date); zero means the wall clock, as
	// transformers' datetime.now().
	Now time.Time
}

// Prompt is a rendered conversation.
type Prompt struct {
	// Text is the rendered prompt.
	Text string
	// User lists the byte ranges of Text that came from messages or
	// variables rather than from the template; pass them to
	// tokenizer.EncodePrompt so that no user text becomes a control token.
	User []tokenizer.Span
}

// Render renders messages. A template that refuses the conversation (for
// example a system turn the model does not support) returns an error
// wrapping a *RaiseError with the template's own message.
func (t *Template) Render(msgs []Message, opts Options) (Prompt, error) {
	vars := globals()
	for k, v := range t.tokens {
		vars[k] = plain(v)
	}
	for k, v := range opts.Vars {
		val, err := fromGo(v, true)
		if err != nil {
			return Prompt{}, fmt.Errorf("chat: variable %q: %w", k, err)
		}
		vars[k] = val
	}
	list := make([]any, len(msgs))
	for i, m := range msgs {
		d := newDict()
		d.set("role", userStr(m.Role))
		d.set("content", userStr(m.Content))
		for _, f := range m.Extra {
			v, err := decodeJSON(f.Value, true)
			if err != nil {
				return Prompt{}, fmt.Errorf("chat: message %d key %q: %w", i, f.Key, err)
			}
			d.set(f.Key, v)
		}
		list[i] = d
	}
	vars["messages"] = list
	vars["add_generation_prompt"] = opts.AddGenerationPrompt
	c := &ctx{scopes: []map[string]any{vars, {}}, now: opts.Now}
	if c.now.IsZero() {
		c.now = time.Now()
	}
	if err := c.exec(t.nodes); err != nil {
		var re *RaiseError
		if errors.As(err, &re) {
			return Prompt{}, fmt.Errorf("chat template refused the conversation: %w", err)
		}
		if err == errBreak || err == errContinue {
			return Prompt{}, fmt.Errorf("chat template: %w", err)
		}
		return Prompt{}, fmt.Errorf("chat template: %w", err)
	}
	p := Prompt{Text: c.out.String()}
	for _, s := range c.taint {
		p.User = append(p.User, tokenizer.Span{Start: s.a, End: s.b})
	}
	return p, nil
}

// endOfTurnTexts are the end-of-turn markers of the common template
// families.
var endOfTurnTexts = [...]string{
	"<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<|end|>", "<|eom_id|>",
	"<|end_of_text|>", "<|endoftext|>", "</s>", "<|return|>", "<end_of_utterance>",
}

// StopTokens returns the ids that end an assistant reply: the tokenizer's
// end-of-generation set (EOS, metadata EOT/EOM, known end-of-turn texts)
// plus every end-of-turn marker this template writes that the vocabulary
// has as a single token. A harmony template (gpt-oss) stops on <|return|>
// and <|call|> instead of <|end|>, which only closes the analysis message.
// The result is sorted.
func (t *Template) StopTokens(tk *tokenizer.Tokenizer) []int32 {
	ids := tk.EndOfGeneration()
	for _, s := range endOfTurnTexts {
		if !bytes.Contains([]byte(t.src), []byte(s)) {
			continue
		}
		if id, ok := tk.TokenID(s); ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if t.Harmony() {
		ids = harmonyStops(ids, tk)
	}
	slices.Sort(ids)
	return ids
}
