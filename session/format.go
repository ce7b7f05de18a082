package session

import (
	"fmt"

	"github.com/isagi-lab/isagi/engine/grammar"
)

// Format is a form a reply is held to: a grammar every sampled token must
// keep to (engine/grammar). It is read-only and may serve many replies
// and sessions at once.
type Format struct{ g *grammar.Grammar }

// JSONObjectFormat holds a reply to one JSON object.
func JSONObjectFormat() (*Format, error) { return GrammarFormat(grammar.JSONObjectGrammar()) }

// JSONSchemaFormat holds a reply to a document of schema (OpenAI's
// structured-outputs subset; strict adds its rules: every object closed,
// every property required). A keyword the grammar cannot hold is one
// sentence naming its JSON path.
func JSONSchemaFormat(schema []byte, strict bool) (*Format, error) {
	conv := grammar.FromJSONSchema
	if strict {
		conv = grammar.FromJSONSchemaStrict
	}
	src, err := conv(schema)
	if err != nil {
		return nil, err
	}
	f, err := GrammarFormat(src)
	if err != nil {
		// The converter writes what the parser reads: a bug of ours.
		return nil, fmt.Errorf("session: the grammar made from a JSON schema does not parse: %w", err)
	}
	return f, nil
}

// GrammarFormat holds a reply to a GBNF grammar (llama.cpp's format).
func GrammarFormat(gbnf string) (*Format, error) {
	g, err := grammar.Parse(gbnf)
	if err != nil {
		return nil, err
	}
	return &Format{g: g}, nil
}

// SetFormat holds the replies from now on to f, each reply matched from
// the start of f's grammar, until f is nil.
func (s *Session) SetFormat(f *Format) error {
	if f == nil {
		s.SetConstraint(nil)
		return nil
	}
	v, err := s.pr.GrammarVocab()
	if err != nil {
		return err
	}
	s.SetConstraint(grammar.NewConstraint(grammar.NewMatcher(f.g, v)))
	return nil
}
