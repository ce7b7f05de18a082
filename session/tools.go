package session

import (
	"errors"
	"fmt"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/grammar"
)

// Tool calls: a conversation may offer the model functions; the template
// renders them, the reply's calls are read back with a ToolReader, and a
// call the client requires is held to the model's call syntax by a
// grammar.

// Tool is one function offered to the model.
type Tool = chat.Tool

// ToolCall is one call a reply made.
type ToolCall = chat.ToolCall

// ToolDelta is a piece of a streamed call (ToolReader).
type ToolDelta = chat.ToolDelta

// ToolReader reads a reply's text and calls as it streams.
type ToolReader = chat.ToolReader

// ToolUse is what a turn offers and asks of tools.
type ToolUse struct {
	Tools []Tool
	// Required says the reply must be a call (OpenAI's tool_choice
	// "required"); Name that it must be a call of that tool (a named
	// tool_choice), which implies Required.
	Required bool
	Name     string
	// Parallel lets a required reply make more than one call.
	Parallel bool
}

// ErrNoChat reports tools offered to a model without a chat template.
var ErrNoChat = errors.New("this model has no chat template, so it cannot be offered tools")

// SetTools offers u's tools from the next turn on (nil: none). A required
// call holds the next reply to the call syntax of the model's template
// (its own constraint, as SetConstraint sets), each call's arguments to
// its tool's schema; a schema the grammar cannot hold is an error naming
// the tool and the schema's part. Without one, the reply is free until it
// begins a call (the syntax's Trigger), and the call is then held the same
// way. nil also lifts that constraint.
func (s *Session) SetTools(u *ToolUse) error {
	tmpl := s.cv.template()
	if u == nil || len(u.Tools) == 0 {
		s.cv.setTools(nil)
		if s.toolsHeld {
			s.SetConstraint(nil)
		}
		s.toolsHeld, s.toolSpecial = false, false
		return nil
	}
	if tmpl == nil {
		return ErrNoChat
	}
	syn := tmpl.ToolSyntax()
	var c generate.Constraint
	switch {
	case u.Required || u.Name != "":
		m, err := s.toolMatcher(syn, u)
		if err != nil {
			return err
		}
		c = grammar.NewConstraint(m)
	case syn.Trigger() != "":
		// tool_choice auto: free until the model begins a call, then held
		// to the form (a lazy grammar). A schema the grammar cannot hold
		// leaves the calls read but not held.
		if m, err := s.toolMatcher(syn, u); err == nil {
			c = grammar.NewLazyConstraint(m, []string{syn.Trigger()})
		}
	}
	if c != nil || s.toolsHeld {
		s.SetConstraint(c)
	}
	s.toolsHeld = c != nil
	s.cv.setTools(u.Tools)
	// Markers that are control tokens (Mistral's [TOOL_CALLS]) must reach
	// the reader as text.
	s.toolSpecial = false
	for _, m := range syn.Markers() {
		if id, ok := s.tok.TokenID(m); ok && s.tok.IsControl(id) {
			s.toolSpecial = true
		}
	}
	return nil
}

// toolMatcher is a matcher of u's calls in syntax syn (of the tool u
// names, or of any), on the vocabulary in which the syntax's markers are
// choosable.
func (s *Session) toolMatcher(syn chat.ToolSyntax, u *ToolUse) (*grammar.Matcher, error) {
	src, err := chat.ToolGrammar(syn, u.Tools, u.Name, u.Parallel)
	if err != nil {
		return nil, err
	}
	f, err := GrammarFormat(src)
	if err != nil {
		return nil, fmt.Errorf("session: the grammar of the tool calls does not parse: %w", err)
	}
	v, err := s.pr.markedVocab(syn.Markers())
	if err != nil {
		return nil, err
	}
	return grammar.NewMatcher(f.g, v), nil
}

// NewToolReader reads a reply of this session's model for tool calls, in
// its template's syntax.
func (s *Session) NewToolReader() *ToolReader {
	syn := chat.ToolsGeneric
	if t := s.cv.template(); t != nil {
		syn = t.ToolSyntax()
	}
	return chat.NewToolReader(syn)
}

// ToolSyntax names the call syntax of the model's template (hermes,
// llama3, mistral, mistral-args, harmony, generic).
func (s *Session) ToolSyntax() string {
	if t := s.cv.template(); t != nil {
		return t.ToolSyntax().String()
	}
	return "none"
}
