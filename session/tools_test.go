package session

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/engine/grammar"
)

// TestMarkedVocab: a grammar may choose a call syntax's marker when the
// vocabulary holds it as a control token, and only then.
func TestMarkedVocab(t *testing.T) {
	s, err := OpenBytes(demo.ChatName, demo.ChatModel, Options{Settings: DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, ok := s.tok.TokenID("<|im_start|>")
	if !ok || !s.tok.IsControl(id) {
		t.Fatal("the chat demo has no control token <|im_start|>")
	}
	g, err := grammar.Parse(`root ::= "<|im_start|>"`)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := s.pr.GrammarVocab()
	if err != nil {
		t.Fatal(err)
	}
	marked, err := s.pr.markedVocab([]string{"<|im_start|>"})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.pr.markedVocab([]string{"<|im_start|>"}); again != marked {
		t.Error("a marked vocabulary is built again for the same markers")
	}
	if grammar.NewMatcher(g, plain).Allows(id) {
		t.Error("the plain vocabulary lets a grammar choose a control token")
	}
	if !grammar.NewMatcher(g, marked).Allows(id) {
		t.Error("the marked vocabulary does not let the grammar choose its marker")
	}
}

// TestSetTools: tools on a model without a template are refused; a
// required call on a schema the grammar cannot hold names the tool; the
// generic syntax shows the tools in the system message (the prompt
// grows), and nil takes them away again.
func TestSetTools(t *testing.T) {
	text, err := OpenBytes(demo.Name, demo.Model, Options{Settings: DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	defer text.Close()
	tools := []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string"}}}`)}}
	if err := text.SetTools(&ToolUse{Tools: tools}); !errors.Is(err, ErrNoChat) {
		t.Errorf("tools on a text model: %v", err)
	}
	s, err := OpenBytes(demo.ChatName, demo.ChatModel, Options{Settings: DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bad := []Tool{{Name: "g", Parameters: json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}}`)}}
	if err := s.SetTools(&ToolUse{Tools: bad, Required: true}); err == nil {
		t.Error("a required call on a schema with a pattern was accepted")
	}
	before, err := s.Conversation().PromptTokens("hi")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetTools(&ToolUse{Tools: tools, Required: true}); err != nil {
		t.Fatal(err)
	}
	with, _ := s.Conversation().PromptTokens("hi")
	if with <= before+10 {
		t.Errorf("the prompt with a tool is %d tokens, without %d", with, before)
	}
	if s.constraint == nil {
		t.Error("a required call set no constraint")
	}
	if err := s.SetTools(nil); err != nil {
		t.Fatal(err)
	}
	if after, _ := s.Conversation().PromptTokens("hi"); after != before || s.constraint != nil {
		t.Errorf("after SetTools(nil): %d tokens (want %d), constraint %v", after, before, s.constraint)
	}
	// tool_choice auto: a lazy grammar, idle until a call begins; a
	// reply in prose goes through it untouched.
	if err := s.SetTools(&ToolUse{Tools: tools}); err != nil {
		t.Fatal(err)
	}
	lazy, ok := s.constraint.(*grammar.LazyConstraint)
	if !ok {
		t.Fatalf("auto set %T, not a lazy grammar", s.constraint)
	}
	turn, err := s.SendNoMemory(context.Background(), "Hello!", func(Event) {})
	if err != nil || turn.Text == "" || lazy.Active() {
		t.Fatalf("a reply under auto: %q, %v, grammar active %v", turn.Text, err, lazy.Active())
	}
	// A schema the grammar cannot hold: the calls are read, not held.
	if err := s.SetTools(&ToolUse{Tools: bad}); err != nil || s.constraint != nil {
		t.Errorf("auto with a pattern: %v, constraint %v", err, s.constraint)
	}
}
