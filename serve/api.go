package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strings"
)

// The request and response bodies of the OpenAI API (the subset the
// server implements: docs/serve.md lists it) and ISAGI's extension, the
// "isagi" object of a request and of every response and stream chunk.

// message is one chat message. Content is a string or an array of parts,
// of which only text parts are understood.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// ToolCalls are an assistant's calls; ToolCallID and Name say which
	// call a tool's result answers.
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
}

// stopList is OpenAI's "stop": one string or up to four.
type stopList []string

func (s *stopList) UnmarshalJSON(b []byte) error {
	list, err := decodeTexts(b, "stop", "a string or an array of strings")
	*s = stopList(list)
	return err
}

// promptText is a completion's "prompt": one string or an array of
// strings (token-id arrays are not accepted).
type promptText []string

func (t *promptText) UnmarshalJSON(b []byte) error {
	list, err := decodeTexts(b, "prompt", "a string or an array of strings (token-id arrays are not supported)")
	*t = promptText(list)
	return err
}

// inputText is an embeddings "input": one string or an array of strings.
type inputText []string

func (t *inputText) UnmarshalJSON(b []byte) error {
	list, err := decodeTexts(b, "input", "a string or an array of strings (token-id arrays are not supported)")
	*t = inputText(list)
	return err
}

// decodeTexts reads one string or an array of strings; null is none. The
// field's own name and shape go into the error, which the decoder cannot
// name for a type with its own UnmarshalJSON.
func decodeTexts(b []byte, field, want string) ([]string, error) {
	if bytes.Equal(b, []byte("null")) {
		return nil, nil
	}
	var one string
	if json.Unmarshal(b, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return nil, shapeError{param: field, msg: fmt.Sprintf("%q must be %s, got %s", field, want, showJSON(b))}
	}
	return many, nil
}

// shapeError is a field of the right JSON syntax and the wrong shape, in
// one sentence naming it.
type shapeError struct{ param, msg string }

func (e shapeError) Error() string { return e.msg }

// streamOptions is OpenAI's stream_options.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// extRequest is the "isagi" object of a request: the living model's knobs
// for this request (docs/serve.md).
type extRequest struct {
	// SessionID keeps a conversation's KV cache, living manifold and
	// knobs across requests; Save writes it to the server's session
	// directory as <id>.miku after the reply.
	SessionID string `json:"session_id"`
	Save      bool   `json:"save"`
	// Snipe is the projector set (category names; [] none).
	Snipe *[]string `json:"snipe"`
	// OGDAlpha is the Safe OGD exploration step (0 off).
	OGDAlpha *float64 `json:"ogd_alpha"`
	// Rank, Slots and Alloc choose the GRC compression (rank 0 off).
	Rank  *int    `json:"rank"`
	Slots *string `json:"slots"`
	Alloc *string `json:"alloc"`
	// Memory turns the living manifold's serving on or off for the
	// session (session_id only; on by default).
	Memory *bool `json:"memory"`
	// KVKeep is the share of positions the KV cache keeps (1: no
	// eviction) and KVScorer what it keeps (docs/kv.md).
	KVKeep   *float64 `json:"kv_keep"`
	KVScorer *string  `json:"kv_scorer"`
	// Experts asks for each generated token's routing on a mixture of
	// experts: per MoE layer, the experts chosen and their weights.
	Experts bool `json:"experts"`
	// ExpertOff switches experts off ("12:37,*:5"; "" or "none": none),
	// as the expert_off setting does.
	ExpertOff *string `json:"expert_off"`
	// Steer is this request's steering: control vectors by name (the
	// server's data directory's steer/NAME.gguf) or a profile category,
	// each with its scale and layers; [] none. Absent: the server's
	// --control-vector default.
	Steer *[]steerRequest `json:"steer"`
}

// steerRequest is one vector of isagi.steer.
type steerRequest struct {
	Vector string   `json:"vector"`
	Scale  *float64 `json:"scale"`  // 1 when absent
	Layers []int    `json:"layers"` // [start, end] inclusive; absent: llama.cpp's default
}

// genRequest is a chat completion or a completion request.
type genRequest struct {
	Model         string         `json:"model"`
	Messages      []message      `json:"messages"` // chat
	Prompt        *promptText    `json:"prompt"`   // completion
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options"`
	Temperature   *float64       `json:"temperature"`
	TopP          *float64       `json:"top_p"`
	MaxTokens     *int           `json:"max_tokens"`
	// MaxCompletionTokens is the newer name of max_tokens (chat).
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	Stop                stopList `json:"stop"`
	Seed                *int64   `json:"seed"`
	N                   *int     `json:"n"`
	// Logprobs is a bool for chat and a count (the top alternatives) for
	// completions: json.RawMessage tells which was sent.
	Logprobs    json.RawMessage `json:"logprobs"`
	TopLogprobs *int            `json:"top_logprobs"`
	Isagi       *extRequest     `json:"isagi"`

	// ResponseFormat holds the reply to JSON (parseFormat); the tool
	// fields offer functions (serve/tools.go).
	ResponseFormat    *responseFormat   `json:"response_format"`
	Tools             []json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage   `json:"tool_choice"`
	ParallelToolCalls *bool             `json:"parallel_tool_calls"`
	Functions         []json.RawMessage `json:"functions"`     // tools' older form
	FunctionCall      json.RawMessage   `json:"function_call"` // tool_choice's older form

	// The fields below are OpenAI's that this server does not implement
	// (or implements in part): they are read only so that a request that
	// relies on one is refused rather than answered with plain text as
	// if it had not asked (parse says which values pass).
	// Echo, Suffix and BestOf are completions' (/v1/completions).
	Echo   *bool   `json:"echo"`
	Suffix *string `json:"suffix"`
	BestOf *int    `json:"best_of"`
}

// responseFormat is OpenAI's response_format: "text", "json_object" (any
// JSON object) or "json_schema" (a document of the schema), the JSON
// modes enforced by a grammar on every sampled token (engine/grammar).
type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema"`
}

// jsonSchema is response_format.json_schema.
type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict *bool           `json:"strict"`
}

// embeddingsRequest is POST /v1/embeddings.
type embeddingsRequest struct {
	Model          string    `json:"model"`
	Input          inputText `json:"input"`
	EncodingFormat string    `json:"encoding_format"`
}

// hiddenRequest is POST /isagi/v1/hidden: the residual stream of a text
// after the layers asked (-1: the final norm), or with ugt its UGT
// coordinates at the profile's probe layer.
type hiddenRequest struct {
	Model  string `json:"model"`
	Text   string `json:"text"`
	Layers []int  `json:"layers"`
	UGT    bool   `json:"ugt"`
}

// apiError is an error as OpenAI returns it: a status and the JSON body
// {"error": {"message", "type", "param", "code"}}.
type apiError struct {
	Status  int
	Message string
	Type    string
	Param   string
	Code    string
	// RetryAfter, in seconds, is sent as Retry-After (429, 503).
	RetryAfter int
}

func (e *apiError) Error() string { return e.Message }

func badRequest(param, format string, a ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: param, Message: fmt.Sprintf(format, a...)}
}

// writeError writes e as OpenAI does.
func writeError(w http.ResponseWriter, e *apiError) {
	noteError(w, e)
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(e.RetryAfter))
	}
	body := map[string]any{"message": e.Message, "type": e.Type, "param": nil, "code": nil}
	if e.Param != "" {
		body["param"] = e.Param
	}
	if e.Code != "" {
		body["code"] = e.Code
	}
	writeJSON(w, e.Status, map[string]any{"error": body})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// textOf is a message's content as text: a string, or the text parts of
// an array joined.
func textOf(i int, raw json.RawMessage) (string, *apiError) {
	param := fmt.Sprintf("messages[%d].content", i)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", badRequest(param, "%s must be a string or an array of content parts", param)
	}
	var b strings.Builder
	for j, p := range parts {
		if p.Type != "text" {
			return "", badRequest(param, "%s[%d] is a %q part: this model reads text parts only", param, j, p.Type)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// sessionIDPattern is what a session id may be: it names a file.
var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
