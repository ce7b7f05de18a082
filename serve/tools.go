package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/isagi-lab/isagi/session"
)

// Tool calling (OpenAI's tools, tool_choice, parallel_tool_calls and the
// older functions / function_call): the tools are rendered by the model's
// template, the reply is read for calls in the template family's syntax
// as it streams, and tool_choice "required" or a named function holds the
// reply to a call with a grammar.

// toolNamePattern is what OpenAI accepts as a function's name.
var toolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// functionDef is a tool's function (or an entry of the older functions).
type functionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
}

// parseTools reads tools (or functions), tool_choice (or function_call)
// and parallel_tool_calls into the plan. tool_choice "none" offers no
// tool, as llama.cpp's server does: the model is not shown them.
func (p *plan) parseTools(req *genRequest) *apiError {
	param, list := "tools", req.Tools
	if len(list) == 0 && len(req.Functions) > 0 {
		param, list = "functions", req.Functions
	}
	choiceParam, choice := "tool_choice", req.ToolChoice
	if len(choice) == 0 && len(req.FunctionCall) > 0 {
		choiceParam, choice = "function_call", req.FunctionCall
	}
	if len(list) > 0 && !p.chat {
		return badRequest(param, "%s are for chat completions (/v1/chat/completions), not completions", param)
	}
	var tools []session.Tool
	seen := map[string]bool{}
	for i, raw := range list {
		at := fmt.Sprintf("%s[%d]", param, i)
		var fn functionDef
		if param == "tools" {
			var t struct {
				Type     string       `json:"type"`
				Function *functionDef `json:"function"`
			}
			if err := json.Unmarshal(raw, &t); err != nil {
				return badRequest(at, "%s must be an object {\"type\": \"function\", \"function\": {…}}", at)
			}
			if t.Type != "function" {
				return badRequest(at+".type", "%s.type %q is not supported: only \"function\" tools are", at, t.Type)
			}
			if t.Function == nil {
				return badRequest(at+".function", "%s.function is required", at)
			}
			fn, at = *t.Function, at+".function"
		} else if err := json.Unmarshal(raw, &fn); err != nil {
			return badRequest(at, "%s must be an object {\"name\", \"description\", \"parameters\"}", at)
		}
		if !toolNamePattern.MatchString(fn.Name) {
			return badRequest(at+".name", "%s.name %s must be 1 to 64 letters, digits, '_' or '-'", at, showJSON(jsonString(fn.Name)))
		}
		if seen[fn.Name] {
			return badRequest(at+".name", "%s.name %q is offered twice", at, fn.Name)
		}
		seen[fn.Name] = true
		params := bytes.TrimSpace(fn.Parameters)
		if len(params) == 0 || string(params) == "null" {
			params = nil
		} else if params[0] != '{' {
			return badRequest(at+".parameters", "%s.parameters must be a JSON Schema object, not %s", at, showJSON(params))
		}
		tools = append(tools, session.Tool{Name: fn.Name, Description: fn.Description, Parameters: json.RawMessage(params), Strict: fn.Strict != nil && *fn.Strict})
	}
	use := &session.ToolUse{Tools: tools, Parallel: req.ParallelToolCalls == nil || *req.ParallelToolCalls}
	if len(choice) > 0 && string(choice) != "null" {
		var mode string
		var named struct {
			Name     string `json:"name"` // function_call's form
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		switch {
		case json.Unmarshal(choice, &mode) == nil:
			switch mode {
			case "none":
				use = nil
			case "auto":
			case "required":
				if choiceParam == "function_call" {
					return badRequest(choiceParam, "function_call must be \"none\", \"auto\" or {\"name\": …}, not \"required\"")
				}
				use.Required = true
			default:
				return badRequest(choiceParam, "%s %q must be \"none\", \"auto\", \"required\" or a function {\"type\": \"function\", \"function\": {\"name\": …}}", choiceParam, mode)
			}
		case json.Unmarshal(choice, &named) == nil:
			name := named.Function.Name
			if choiceParam == "function_call" {
				name = named.Name
			}
			if name == "" {
				return badRequest(choiceParam, "%s %s names no function", choiceParam, showJSON(choice))
			}
			if !seen[name] {
				return badRequest(choiceParam, "%s names %q, which is not one of the %s offered", choiceParam, name, param)
			}
			use.Name, use.Required = name, true
		default:
			return badRequest(choiceParam, "%s must be a string or an object, not %s", choiceParam, showJSON(choice))
		}
	}
	if use != nil && use.Required && len(tools) == 0 {
		return badRequest(choiceParam, "%s asks for a call, but no tools are offered", choiceParam)
	}
	if use == nil || len(tools) == 0 {
		return nil
	}
	if p.syntax == "none" {
		return badRequest(param, "%s cannot be offered: this model has no chat template to show them in", param)
	}
	if use.Required && p.format != nil {
		return badRequest("response_format", "response_format cannot be combined with a required tool call (%s): the reply is the call", choiceParam)
	}
	p.tools = use
	return nil
}

// jsonString is s as a JSON string.
func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// toolCallIn is an assistant message's tool call as a client sends it
// back.
type toolCallIn struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// messageExtra turns message i's tool fields into the template's keys:
// an assistant's tool_calls (each call's arguments, a JSON string on the
// wire, given to the template as the object it holds, which is what the
// templates print), a tool result's tool_call_id and name.
func messageExtra(i int, m message) ([]session.MessageField, *apiError) {
	var extra []session.MessageField
	at := fmt.Sprintf("messages[%d]", i)
	if len(m.ToolCalls) > 0 && string(m.ToolCalls) != "null" {
		if m.Role != "assistant" {
			return nil, badRequest(at+".tool_calls", "%s.tool_calls belongs to an assistant's message, not a %s's", at, m.Role)
		}
		var calls []toolCallIn
		if err := json.Unmarshal(m.ToolCalls, &calls); err != nil {
			return nil, badRequest(at+".tool_calls", "%s.tool_calls must be an array of {\"id\", \"type\": \"function\", \"function\": {\"name\", \"arguments\"}}", at)
		}
		out := make([]any, len(calls))
		for j, c := range calls {
			args := any(map[string]any{})
			var text string
			switch raw := bytes.TrimSpace(c.Function.Arguments); {
			case len(raw) == 0 || string(raw) == "null":
			case json.Unmarshal(raw, &text) == nil:
				args = text
				if json.Valid([]byte(text)) {
					args = json.RawMessage(text)
				}
			default:
				args = json.RawMessage(raw)
			}
			if c.Function.Name == "" {
				return nil, badRequest(fmt.Sprintf("%s.tool_calls[%d].function.name", at, j), "%s.tool_calls[%d].function.name is required", at, j)
			}
			out[j] = map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Function.Name, "arguments": args}}
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, badRequest(at+".tool_calls", "%s.tool_calls: %v", at, err)
		}
		extra = append(extra, session.MessageField{Key: "tool_calls", Value: b})
	}
	if m.ToolCallID != "" {
		extra = append(extra, session.MessageField{Key: "tool_call_id", Value: jsonString(m.ToolCallID)})
	}
	if m.Name != "" && m.Role == "tool" {
		extra = append(extra, session.MessageField{Key: "name", Value: jsonString(m.Name)})
	}
	return extra, nil
}

// toolDeltas streams the call pieces of one step.
func (o *output) toolDeltas(ds []session.ToolDelta) {
	if !o.p.stream || len(ds) == 0 {
		return
	}
	for _, d := range ds {
		call := map[string]any{"index": d.Index}
		if d.ID != "" {
			call["id"], call["type"] = d.ID, "function"
			call["function"] = map[string]any{"name": d.Name, "arguments": d.Arguments}
		} else {
			call["function"] = map[string]any{"arguments": d.Arguments}
		}
		o.chunk(map[string]any{"tool_calls": []any{call}}, nil, nil, nil)
	}
}

// toolCallsJSON is the reply's calls as a message's tool_calls.
func toolCallsJSON(calls []session.ToolCall) []any {
	out := make([]any, len(calls))
	for i, c := range calls {
		out[i] = map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
	}
	return out
}
