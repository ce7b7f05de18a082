package chat

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/isagi-lab/isagi/engine/grammar"
)

// Tool calls. A request offers the model functions (OpenAI's "tools"); the
// template renders them in the model's own words, the model answers with
// calls in its own syntax, and ToolReader reads them back out of the reply
// as it streams. ToolGrammar holds a reply to a call when the client
// requires one.

// Tool is one function offered to the model.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments object (nil: any
	// object).
	Parameters json.RawMessage
	// Strict holds the arguments to OpenAI's strict rules under a
	// grammar.
	Strict bool
}

// ToolCall is one call the model made.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is JSON text, as the model wrote it (an object when the
	// model kept to the form).
	Arguments string
}

// ToolSyntax is how a template family writes tool calls.
type ToolSyntax uint8

const (
	// ToolsGeneric: the template does not render tools. A system message
	// written here describes them (ToolSystemPrompt) and asks for Hermes'
	// syntax, the most common one models are trained on.
	ToolsGeneric ToolSyntax = iota
	// ToolsHermes: <tool_call>{"name": …, "arguments": {…}}</tool_call>,
	// one block per call (Hermes, Qwen 2.5, Qwen 3).
	ToolsHermes
	// ToolsLlama3: the whole reply is {"name": …, "parameters": {…}},
	// after an optional <|python_tag|> (Llama 3.1–3.3).
	ToolsLlama3
	// ToolsMistral: [TOOL_CALLS][{"name": …, "arguments": {…}}, …]
	// (Mistral 7B v0.3, Nemo).
	ToolsMistral
	// ToolsMistralArgs: [TOOL_CALLS]name[ARGS]{…} per call, with an
	// optional [CALL_ID]id before [ARGS] (Mistral Small 3.2, Devstral).
	ToolsMistralArgs
	// ToolsHarmony: gpt-oss's commentary messages to functions.name,
	// which HarmonyReply (Calls set) shows as Hermes calls.
	ToolsHarmony
)

// String names the syntax as docs/serve.md does.
func (s ToolSyntax) String() string {
	switch s {
	case ToolsHermes:
		return "hermes"
	case ToolsLlama3:
		return "llama3"
	case ToolsMistral:
		return "mistral"
	case ToolsMistralArgs:
		return "mistral-args"
	case ToolsHarmony:
		return "harmony"
	}
	return "generic"
}

// The markers of the call syntaxes.
const (
	hermesOpen    = "<tool_call>"
	hermesClose   = "</tool_call>"
	mistralCalls  = "[TOOL_CALLS]"
	mistralArgs   = "[ARGS]"
	mistralCallID = "[CALL_ID]"
	llamaPython   = "<|python_tag|>"
)

// ToolSyntax reads which family's call syntax the template writes, as
// llama.cpp tells them apart: by the markers its source holds. A template
// that never reads the tools variable is ToolsGeneric, whatever it holds.
func (t *Template) ToolSyntax() ToolSyntax {
	src := t.src
	switch {
	case t.Harmony():
		return ToolsHarmony
	case !strings.Contains(src, "tools"):
		return ToolsGeneric
	case strings.Contains(src, mistralCalls) && strings.Contains(src, mistralArgs):
		return ToolsMistralArgs
	case strings.Contains(src, mistralCalls):
		return ToolsMistral
	case strings.Contains(src, hermesOpen):
		return ToolsHermes
	case strings.Contains(src, llamaPython), strings.Contains(src, `"parameters"`):
		return ToolsLlama3
	}
	return ToolsGeneric
}

// Markers are the texts of the syntax's call markers, which a vocabulary
// may hold as control tokens: a grammar holding a reply to a call must be
// able to choose them, and the reply must be decoded with them shown.
func (s ToolSyntax) Markers() []string {
	switch s {
	case ToolsMistral:
		return []string{mistralCalls}
	case ToolsMistralArgs:
		return []string{mistralCalls, mistralArgs, mistralCallID}
	case ToolsLlama3:
		return []string{llamaPython}
	case ToolsHarmony:
		return []string{harmonyChannel, harmonyMessage}
	}
	return nil
}

// Trigger is the marker that begins a call in syntax s, from which a lazy
// grammar holds the reply (grammar.LazyConstraint): Hermes' <tool_call>
// (and the generic syntax's), Mistral's [TOOL_CALLS]. Llama 3's calls
// begin with plain JSON, which prose may hold too, and harmony's are
// messages, so they have none ("").
func (s ToolSyntax) Trigger() string {
	switch s {
	case ToolsGeneric, ToolsHermes:
		return hermesOpen
	case ToolsMistral, ToolsMistralArgs:
		return mistralCalls
	}
	return ""
}

// NewCallID makes an id for a call: nine letters and digits for Mistral's
// families (their templates refuse any other), "call_" and 24 of them
// otherwise, as OpenAI's look.
func (s ToolSyntax) NewCallID() string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	n, prefix := 24, "call_"
	if s == ToolsMistral || s == ToolsMistralArgs {
		n, prefix = 9, ""
	}
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return prefix + string(b)
}

// ToolsVar is the tools list as templates read it (the tools variable):
// OpenAI's form, {"type": "function", "function": {name, description,
// parameters}}.
func ToolsVar(tools []Tool) []any {
	list := make([]any, len(tools))
	for i, t := range tools {
		fn := map[string]any{"name": t.Name}
		if t.Description != "" {
			fn["description"] = t.Description
		}
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type": "object", "properties": {}}`)
		}
		fn["parameters"] = params
		list[i] = map[string]any{"type": "function", "function": fn}
	}
	return list
}

// ToolSystemPrompt describes the tools for a template that does not render
// them (ToolsGeneric), in the words Hermes-trained models know: the
// system message gets it after its own text.
func ToolSystemPrompt(tools []Tool) string {
	var b strings.Builder
	b.WriteString("You may call one or more functions to help with the user's request. The functions are:\n")
	for _, t := range ToolsVar(tools) {
		line, _ := json.Marshal(t)
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString("To call a function, reply with a JSON object inside <tool_call></tool_call> tags, one per call:\n")
	b.WriteString("<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>")
	return b.String()
}

// ToolGrammar is GBNF holding a reply to tool calls in syntax s: calls of
// the tool named only (name "") or of any of tools, one call or, with
// parallel, one or more; each call's arguments a document of its tool's
// parameter schema. A schema the grammar cannot hold is an error naming
// the tool and the schema's part.
func ToolGrammar(s ToolSyntax, tools []Tool, name string, parallel bool) (string, error) {
	set := grammar.NewSchemaSet()
	set.Compact = true
	var alts []string
	for _, t := range tools {
		if name != "" && t.Name != name {
			continue
		}
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type": "object"}`)
		}
		args, err := set.Add(params, "args-"+t.Name, t.Strict)
		if err != nil {
			return "", fmt.Errorf("tool %q: %w", t.Name, err)
		}
		var call string
		switch s {
		case ToolsGeneric, ToolsHermes:
			call = grammar.Literal(hermesOpen+"\n{\"name\": \""+t.Name+"\", \"arguments\": ") + " " + args + " " + grammar.Literal("}\n"+hermesClose)
		case ToolsLlama3:
			call = grammar.Literal("{\"name\": \""+t.Name+"\", \"parameters\": ") + " " + args + " " + grammar.Literal("}")
		case ToolsMistral:
			call = grammar.Literal("{\"name\": \""+t.Name+"\", \"arguments\": ") + " " + args + " " + grammar.Literal("}")
		case ToolsMistralArgs:
			call = grammar.Literal(mistralCalls+t.Name+mistralArgs) + " " + args
		case ToolsHarmony:
			// A commentary message to the function, as gpt-oss's
			// template writes one after the prompt's "<|start|>assistant";
			// <|call|> (a stop token) ends it.
			call = grammar.Literal(" to=functions."+t.Name+harmonyChannel+"commentary json"+harmonyMessage) + " " + args
		default:
			return "", fmt.Errorf("a call in %s syntax cannot be required yet", s)
		}
		alts = append(alts, "( "+call+" )")
	}
	if len(alts) == 0 {
		return "", fmt.Errorf("no tool is named %q", name)
	}
	call := "( " + strings.Join(alts, " | ") + " )"
	var root string
	switch {
	case s == ToolsLlama3 || s == ToolsHarmony || !parallel:
		// Llama 3's templates take one call per reply; a harmony reply
		// ends at its call (<|call|>).
		root = call
		if s == ToolsMistral {
			root = grammar.Literal(mistralCalls+"[") + " " + call + " " + grammar.Literal("]")
		}
	case s == ToolsMistral:
		root = grammar.Literal(mistralCalls+"[") + " " + call + " ( " + grammar.Literal(", ") + " " + call + " )* " + grammar.Literal("]")
	case s == ToolsMistralArgs:
		root = call + " " + call + "*"
	default:
		root = call + " ( " + grammar.Literal("\n") + " " + call + " )*"
	}
	return set.Grammar(root)
}

// ToolDelta is a piece of a streamed call: the first of a call carries its
// ID and Name, the others pieces of its Arguments, in order.
type ToolDelta struct {
	Index     int
	ID, Name  string
	Arguments string
}

// ToolReader reads a reply, as it streams, into the text it says and the
// calls it makes, in syntax s. A marker cut across writes is held back
// until it is whole; a call whose form breaks before its name is known is
// given back as text, never an error. The zero value is not ready; use
// NewToolReader. Not safe for concurrent use.
type ToolReader struct {
	s     ToolSyntax
	st    readState
	hold  []byte // text not yet given out (a possible marker)
	spoke bool   // text other than space was given out
	raw   []byte // the current call's text, given back if it breaks
	obj   objScan
	name  string
	args  []byte // arguments not yet given out
	named bool   // the current call's name was given out
	// listOpen: Mistral's list of calls has begun ("[").
	listOpen  bool
	listStart int // calls before the list
	calls     []ToolCall
	content   strings.Builder
	deltas    []ToolDelta
}

type readState uint8

const (
	stText     readState = iota // text, looking for a call's start
	stObject                    // in a call object (name, arguments)
	stClose                     // Hermes: after the object, before </tool_call>
	stList                      // Mistral: between objects of the list
	stName                      // Mistral [ARGS]: the function's name
	stCallID                    // Mistral [ARGS]: the call's id
	stArgs                      // Mistral [ARGS]: the arguments value
	stTextOnly                  // Llama 3: the reply is text; no call follows
)

// NewToolReader reads a reply written in syntax s. A harmony reply is
// read after its HarmonyReply (Calls set), which shows calls in Hermes'
// syntax.
func NewToolReader(s ToolSyntax) *ToolReader {
	if s == ToolsHarmony {
		s = ToolsHermes
	}
	return &ToolReader{s: s}
}

// Write adds the next piece of the reply and returns the text and the
// call pieces it completes.
func (r *ToolReader) Write(piece string) (string, []ToolDelta) {
	r.content.Reset()
	r.deltas = r.deltas[:0]
	r.hold = append(r.hold, piece...)
	r.run(false)
	return r.content.String(), r.deltas
}

// Flush ends the reply: held-back text comes out, a call cut short keeps
// what it has (its arguments may not parse) or, before its name, comes
// back as text.
func (r *ToolReader) Flush() (string, []ToolDelta) {
	r.content.Reset()
	r.deltas = r.deltas[:0]
	r.run(true)
	switch r.st {
	case stObject, stName, stCallID, stArgs:
		if r.named {
			r.endCall()
		} else {
			r.giveBack()
		}
	case stList:
		if len(r.calls) == r.listStart {
			r.giveBack() // a marker and no call
		}
	}
	r.text(r.hold)
	r.hold = r.hold[:0]
	return r.content.String(), r.deltas
}

// Calls are the calls read so far, complete or cut short.
func (r *ToolReader) Calls() []ToolCall { return r.calls }

func (r *ToolReader) text(b []byte) {
	if len(b) == 0 {
		return
	}
	r.content.Write(b)
	if firstNonSpace(b) >= 0 {
		r.spoke = true
	}
}

// run consumes r.hold as far as it can; end says no more text comes.
func (r *ToolReader) run(end bool) {
	for len(r.hold) > 0 {
		switch r.st {
		case stTextOnly:
			r.text(r.hold)
			r.hold = r.hold[:0]
		case stText:
			if !r.scanText(end) {
				return
			}
		case stObject, stArgs:
			r.scanObject()
		case stClose:
			if !r.expect(hermesClose, end, stText) {
				return
			}
		case stList:
			i := firstNonSpace(r.hold)
			if i < 0 {
				r.raw = append(r.raw, r.hold...)
				r.hold = r.hold[:0]
				return
			}
			r.raw = append(r.raw, r.hold[:i+1]...)
			switch c := r.hold[i]; {
			case c == '[' && !r.listOpen:
				r.listOpen = true
				r.hold = r.hold[i+1:]
			case c == ',' && r.listOpen:
				r.hold = r.hold[i+1:]
			case c == '{' && r.listOpen:
				r.hold = r.hold[i:]
				r.raw = r.raw[:len(r.raw)-1]
				r.startObject(stObject)
			case c == ']' && r.listOpen:
				r.hold = r.hold[i+1:]
				if len(r.calls) == r.listStart {
					r.giveBack() // an empty list: no call
					continue
				}
				r.raw = r.raw[:0]
				r.st = stText
			default:
				// Not a list of calls: what was read is text.
				r.raw = r.raw[:len(r.raw)-1]
				r.hold = r.hold[i:]
				r.giveBack()
			}
		case stName, stCallID:
			if !r.scanName(end) {
				return
			}
		}
	}
}

// scanText gives out text up to a call's start; false when what is left
// may be the start of a marker and must wait.
func (r *ToolReader) scanText(end bool) bool {
	if r.s == ToolsLlama3 && !r.spoke {
		// A Llama 3 call is the whole reply: a JSON object at its start.
		i := firstNonSpace(r.hold)
		if i < 0 {
			r.text(r.hold)
			r.hold = r.hold[:0]
			return false
		}
		r.text(r.hold[:i])
		r.hold = r.hold[i:]
		switch {
		case r.hold[0] == '{':
			r.startObject(stObject)
			return true
		case strings.HasPrefix(llamaPython, string(r.hold[:min(len(r.hold), len(llamaPython))])):
			if len(r.hold) < len(llamaPython) {
				if end {
					r.st = stTextOnly
					return true
				}
				return false
			}
			r.hold = r.hold[len(llamaPython):]
			r.raw = append(r.raw[:0], llamaPython...)
			// The object follows (its scanner skips space before it).
			r.startObject(stObject)
			return true
		}
		r.st = stTextOnly
		return true
	}
	if r.s == ToolsLlama3 {
		r.st = stTextOnly
		return true
	}
	op := r.s.Trigger() // (Llama 3's calls are read above)
	if i := strings.Index(string(r.hold), op); i >= 0 {
		if len(r.calls) == 0 || firstNonSpace(r.hold[:i]) >= 0 {
			r.text(r.hold[:i])
		}
		r.raw = append(r.raw[:0], r.hold[i:i+len(op)]...)
		r.hold = r.hold[i+len(op):]
		switch r.s {
		case ToolsMistral:
			r.st, r.listOpen, r.listStart = stList, false, len(r.calls)
		case ToolsMistralArgs:
			r.st, r.name = stName, ""
		default:
			r.startObject(stObject)
		}
		return true
	}
	// Hold back a tail that may begin the marker.
	keep := partialSuffix(r.hold, op)
	if end {
		keep = 0
	}
	out := r.hold[:len(r.hold)-keep]
	if len(r.calls) > 0 && firstNonSpace(out) < 0 {
		// Space after a call is the calls' separator until text comes.
		if end {
			out = out[:0]
		} else if len(out) > 0 {
			return false
		}
	}
	r.text(out)
	r.hold = append(r.hold[:0], r.hold[len(r.hold)-keep:]...)
	return false
}

// scanName reads a Mistral call's name up to [ARGS] (or [CALL_ID]).
func (r *ToolReader) scanName(end bool) bool {
	s := string(r.hold)
	if i := strings.Index(s, "["); i >= 0 {
		rest := s[i:]
		for _, m := range []string{mistralArgs, mistralCallID} {
			if strings.HasPrefix(rest, m) {
				if r.st == stName {
					r.name += s[:i]
				}
				r.raw = append(r.raw, s[:i+len(m)]...)
				r.hold = r.hold[i+len(m):]
				if strings.TrimSpace(r.name) == "" {
					r.giveBack() // no function named: not a call
					return true
				}
				if m == mistralCallID {
					r.st = stCallID
					return true
				}
				// The name is known: the call is given out, then its
				// arguments as they come.
				r.name = strings.TrimSpace(r.name)
				r.announce()
				r.startObject(stArgs)
				return true
			}
			if strings.HasPrefix(m, rest) && !end {
				if r.st == stName {
					r.name += s[:i]
				}
				r.raw = append(r.raw, s[:i]...)
				r.hold = append(r.hold[:0], rest...)
				return false
			}
		}
		if r.st == stName {
			r.name += s[:i+1]
		}
		r.raw = append(r.raw, s[:i+1]...)
		r.hold = r.hold[i+1:]
		return true
	}
	if r.st == stName {
		r.name += s
	}
	r.raw = append(r.raw, s...)
	r.hold = r.hold[:0]
	if len(r.name) > 256 {
		r.giveBack()
	}
	return false
}

// startObject begins a call's JSON (a whole call object, or for Mistral
// [ARGS] the arguments alone).
func (r *ToolReader) startObject(st readState) {
	r.st = st
	r.obj = objScan{alone: st == stArgs}
	r.args = r.args[:0]
	if st == stObject {
		r.name, r.named = "", false
	}
}

// announce gives out the call's first piece: its id and name.
func (r *ToolReader) announce() {
	if r.named {
		return
	}
	r.named = true
	call := ToolCall{ID: r.s.NewCallID(), Name: r.name}
	r.calls = append(r.calls, call)
	r.deltas = append(r.deltas, ToolDelta{Index: len(r.calls) - 1, ID: call.ID, Name: call.Name})
}

// scanObject feeds held text to the call's JSON scanner.
func (r *ToolReader) scanObject() {
	for i := 0; i < len(r.hold); i++ {
		c := r.hold[i]
		r.raw = append(r.raw, c)
		switch r.obj.step(c) {
		case evBad:
			r.hold = r.hold[i+1:]
			if r.named {
				r.endCall()
				r.st = stText
				if r.s == ToolsLlama3 {
					r.st = stTextOnly
				}
				return
			}
			r.giveBack()
			return
		case evName:
			r.name = r.obj.nameValue()
			if r.name == "" {
				r.hold = r.hold[i+1:]
				r.giveBack()
				return
			}
			r.announce()
		case evArg:
			r.args = append(r.args, c)
		case evEnd:
			if r.obj.alone {
				r.args = append(r.args, c) // the arguments' own last byte
			}
			r.hold = r.hold[i+1:]
			if !r.named {
				// An object, but not a call: text after all.
				r.giveBack()
				return
			}
			r.endCall()
			switch r.s {
			case ToolsMistral:
				r.st = stList
			case ToolsLlama3:
				r.st = stTextOnly
			case ToolsMistralArgs:
				r.st = stText
			default:
				r.st = stClose
			}
			return
		}
	}
	r.hold = r.hold[:0]
	r.flushArgs()
}

// flushArgs gives out the arguments read so far.
func (r *ToolReader) flushArgs() {
	if len(r.args) == 0 || !r.named {
		return
	}
	last := &r.calls[len(r.calls)-1]
	last.Arguments += string(r.args)
	r.deltas = append(r.deltas, ToolDelta{Index: len(r.calls) - 1, Arguments: string(r.args)})
	r.args = r.args[:0]
}

// endCall closes the current call: arguments given as a JSON string (some
// models quote them) are unquoted.
func (r *ToolReader) endCall() {
	r.flushArgs()
	last := &r.calls[len(r.calls)-1]
	var s string
	if strings.HasPrefix(strings.TrimSpace(last.Arguments), `"`) && json.Unmarshal([]byte(last.Arguments), &s) == nil && json.Valid([]byte(s)) {
		last.Arguments = s
	}
	if strings.TrimSpace(last.Arguments) == "" {
		last.Arguments = "{}"
		r.deltas = append(r.deltas, ToolDelta{Index: len(r.calls) - 1, Arguments: "{}"})
	}
	r.raw = r.raw[:0]
	r.named = false
}

// giveBack returns a broken call's text as text.
func (r *ToolReader) giveBack() {
	r.text(r.raw)
	r.raw = r.raw[:0]
	r.st = stText
	if r.s == ToolsLlama3 {
		r.st = stTextOnly
	}
}

// expect consumes space then marker m and moves to next; anything else is
// text.
func (r *ToolReader) expect(m string, end bool, next readState) bool {
	t := trimLeftSpace(r.hold)
	switch {
	case strings.HasPrefix(string(t), m):
		r.hold = t[len(m):]
		r.st = next
		return true
	case len(t) < len(m) && strings.HasPrefix(m, string(t)) && !end:
		return false
	}
	r.st = next
	return true
}

// Events of objScan.step.
type scanEvent uint8

const (
	evNone scanEvent = iota
	evBad            // not JSON a call can be
	evName           // the "name" string ended
	evArg            // the byte belongs to the arguments
	evEnd            // the object (or, alone, the arguments) ended
)

// valueScan follows one JSON value byte by byte, just enough to find its
// end: a string at its closing quote, an object or array at its closing
// bracket, a number or literal at the byte after it (which is not its).
type valueScan struct {
	started    bool
	scalar     bool // a number or literal
	depth      int
	inStr, esc bool
}

// step reads c: whether c is the value's (leading space is not), and
// whether the value is complete.
func (v *valueScan) step(c byte) (own, done bool) {
	if !v.started {
		switch {
		case isSpace(c):
			return false, false
		case c == '"':
			v.inStr = true
		case c == '{' || c == '[':
			v.depth = 1
		case c == '}' || c == ']' || c == ',' || c == ':':
			return false, true // no value at all: the caller sees the byte
		default:
			v.scalar = true
		}
		v.started = true
		return true, false
	}
	if v.scalar {
		if isSpace(c) || c == ',' || c == '}' || c == ']' {
			return false, true
		}
		return true, false
	}
	if v.inStr {
		switch {
		case v.esc:
			v.esc = false
		case c == '\\':
			v.esc = true
		case c == '"':
			v.inStr = false
			return true, v.depth == 0
		}
		return true, false
	}
	switch c {
	case '"':
		v.inStr = true
	case '{', '[':
		v.depth++
	case '}', ']':
		v.depth--
		return true, v.depth == 0
	}
	return true, false
}

// Where objScan is in a call object.
const (
	osStart = iota // before the opening brace
	osKey          // before a member's key (or the closing brace)
	osInKey        // in the key
	osColon        // after the key
	osValue        // in a member's value
	osNext         // after a value: a comma or the closing brace
)

// objScan follows a call object {"name": "…", "arguments": …} byte by
// byte, telling the name, the arguments' bytes and the end. With alone,
// the scanned value is the arguments themselves (Mistral's [ARGS]).
type objScan struct {
	alone    bool
	state    int
	key      []byte
	keyEsc   bool
	member   string
	val      valueScan
	name     []byte
	argsSeen bool
}

func (o *objScan) nameValue() string {
	var s string
	if json.Unmarshal(o.name, &s) != nil {
		return ""
	}
	return s
}

// step reads byte c.
func (o *objScan) step(c byte) scanEvent {
	if o.alone {
		own, done := o.val.step(c)
		switch {
		case done && !own:
			return evBad
		case done:
			return evEnd
		case own:
			return evArg
		}
		return evNone
	}
	switch o.state {
	case osStart:
		if isSpace(c) {
			return evNone
		}
		if c != '{' {
			return evBad
		}
		o.state = osKey
	case osKey:
		switch {
		case isSpace(c):
		case c == '"':
			o.key, o.keyEsc, o.state = append(o.key[:0], c), false, osInKey
		case c == '}':
			return evEnd
		default:
			return evBad
		}
	case osInKey:
		o.key = append(o.key, c)
		switch {
		case o.keyEsc:
			o.keyEsc = false
		case c == '\\':
			o.keyEsc = true
		case c == '"':
			var k string
			if json.Unmarshal(o.key, &k) != nil {
				return evBad
			}
			o.member, o.state = k, osColon
		}
	case osColon:
		switch {
		case isSpace(c):
		case c == ':':
			o.state, o.val = osValue, valueScan{}
			if o.member == "name" {
				o.name = o.name[:0]
			}
		default:
			return evBad
		}
	case osValue:
		own, done := o.val.step(c)
		args := o.member == "arguments" || o.member == "parameters"
		if own && o.member == "name" {
			o.name = append(o.name, c)
		}
		ev := evNone
		if own && args {
			ev, o.argsSeen = evArg, true
		}
		if !done {
			return ev
		}
		o.state = osNext
		if o.member == "name" && own {
			return evName
		}
		if !own {
			if !o.val.started {
				return evBad
			}
			return o.step(c) // the byte after a number or literal
		}
		return ev
	case osNext:
		switch {
		case isSpace(c):
		case c == ',':
			o.state = osKey
		case c == '}':
			return evEnd
		default:
			return evBad
		}
	}
	return evNone
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if !isSpace(c) {
			return i
		}
	}
	return -1
}

func trimLeftSpace(b []byte) []byte {
	if i := firstNonSpace(b); i >= 0 {
		return b[i:]
	}
	return b[:0]
}

// partialSuffix is the length of the longest tail of b that begins m.
func partialSuffix(b []byte, m string) int {
	for n := min(len(b), len(m)-1); n > 0; n-- {
		if strings.HasPrefix(m, string(b[len(b)-n:])) {
			return n
		}
	}
	return 0
}
