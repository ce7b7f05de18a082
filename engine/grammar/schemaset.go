package grammar

import (
	"errors"
	"fmt"
)

// SchemaSet converts several JSON Schemas into one grammar: each becomes a
// rule of its own, named by Add, and Grammar writes a root rule over them
// in whatever syntax surrounds them. A tool call needs it: one grammar
// allows a call of any of the tools, each with its parameters' schema,
// wrapped in the model's own call syntax. The zero value is not ready;
// use NewSchemaSet.
type SchemaSet struct {
	c *schemaConv
	// Compact allows at most one blank where JSON allows space (the
	// converter otherwise allows llama.cpp's two newlines and twenty
	// blanks): in a tool call whitespace is no content, and a small
	// model can spend its whole budget on it.
	Compact bool
}

// NewSchemaSet starts an empty set.
func NewSchemaSet() *SchemaSet { return &SchemaSet{c: newSchemaConv(nil, false)} }

// Add converts schema (FromJSONSchema's subset; strict adds OpenAI's
// strict rules) into a rule named from hint and returns the rule's name,
// for the root body given to Grammar. "#" references inside schema refer
// to schema itself. An error names the offending part by its JSON path
// within schema.
func (s *SchemaSet) Add(schema []byte, hint string, strict bool) (string, error) {
	root, err := parseJSON(schema)
	if err != nil {
		return "", fmt.Errorf("grammar: json schema: %v", err)
	}
	if strict && (root.kind != jObject || !typeIs(root.get("type"), "object")) {
		return "", errors.New(`grammar: json schema: $: strict mode needs the root to be an object ("type": "object")`)
	}
	c := s.c
	// Each schema has its own root and its own pointers; the rule names
	// stay unique across the set.
	c.root, c.strict, c.refs = root, strict, map[string]string{}
	name := c.newName(hint)
	c.rootName = name
	if err := c.visitInto(root, "$", name); err != nil {
		return "", err
	}
	return name, nil
}

// Prim returns the name of one of the JSON primitives (value, object,
// array, string, number, integer, boolean, null, space) for a root body,
// and makes the grammar define it.
func (s *SchemaSet) Prim(name string) string { return s.c.prim(name) }

// Literal is text as a GBNF literal ("…" with escapes).
func Literal(text string) string { return gbnfLiteral(text) }

// Grammar returns the set's GBNF text with root ::= rootBody first. It is
// checked by Parse: a body that does not parse, or a schema that can
// describe no finite document, is an error.
func (s *SchemaSet) Grammar(rootBody string) (string, error) {
	c := s.c
	c.order = append([]string{"root"}, c.order...)
	c.bodies["root"] = rootBody
	c.compact = s.Compact
	text := c.text()
	c.order = c.order[1:]
	delete(c.bodies, "root")
	if _, err := Parse(text); err != nil {
		return "", fmt.Errorf("grammar: the grammar over the schemas does not parse: %w", err)
	}
	return text, nil
}
