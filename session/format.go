package session

import (
	"fmt"
	"strings"

	"github.com/isagi-lab/isagi/engine/grammar"
	"github.com/isagi-lab/isagi/engine/regfile"
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

// SetFormat holds the next reply to f, matched from the start of f's
// grammar, and the replies after it until f is nil (which leaves the
// format setting, if any, in force again).
func (s *Session) SetFormat(f *Format) error {
	if f == nil {
		s.SetConstraint(nil)
		return nil
	}
	c, err := f.constraint(s)
	if err != nil {
		return err
	}
	s.SetConstraint(c)
	return nil
}

// constraint is a matcher of f on s's vocabulary, at the grammar's start.
func (f *Format) constraint(s *Session) (*grammar.Constraint, error) {
	v, err := s.pr.GrammarVocab()
	if err != nil {
		return nil, err
	}
	return f.Constraint(v), nil
}

// Constraint is a matcher of f on vocabulary v (GrammarVocab), at the
// grammar's start: what generate.Options.Constraint takes, for one reply.
func (f *Format) Constraint(v *grammar.Vocab) *grammar.Constraint {
	return grammar.NewConstraint(grammar.NewMatcher(f.g, v))
}

// ReadFormat is the format setting's value compiled: "json", FILE.json (a
// JSON Schema) or FILE.gbnf (a grammar); "" or "off" is none (nil).
func ReadFormat(spec string) (*Format, error) {
	switch {
	case spec == "" || spec == "off":
		return nil, nil
	case spec == "json":
		return JSONObjectFormat()
	case strings.HasSuffix(spec, ".json"), strings.HasSuffix(spec, ".gbnf"):
		b, err := regfile.ReadRegular(spec, 1<<20)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(spec, ".json") {
			return JSONSchemaFormat(b, false)
		}
		return GrammarFormat(string(b))
	}
	return nil, fmt.Errorf("want off, json, a JSON Schema file (.json) or a GBNF grammar file (.gbnf)")
}

// useFormat compiles the format setting spec, unless it is the one in use.
func (s *Session) useFormat(spec string) error {
	if spec == s.formatSpec {
		return nil
	}
	f, err := ReadFormat(spec)
	if err != nil {
		return err
	}
	s.format, s.formatSpec = f, spec
	return nil
}
