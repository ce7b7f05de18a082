package base

import (
	"flag"
	"fmt"

	"github.com/isagi-lab/isagi/engine/grammar"
	"github.com/isagi-lab/isagi/engine/regfile"
)

// FormatFlags hold a reply to a form, as a server's response_format does:
// --json (any JSON object), --json-schema F (a document of the JSON Schema
// in F) or --grammar-file F (llama.cpp's GBNF, as llama-cli's flag of that
// name reads it). Every sampled token is masked to what the grammar allows
// (engine/grammar).
type FormatFlags struct {
	json         bool
	schema, gbnf string
	strict       bool
}

// Register adds the flags to fs.
func (ff *FormatFlags) Register(fs *flag.FlagSet) {
	fs.BoolVar(&ff.json, "json", false, "hold the reply to one JSON object (every token masked by a grammar)")
	fs.StringVar(&ff.schema, "json-schema", "", "hold the reply to a document of the JSON Schema in `FILE` (OpenAI's structured-outputs subset)")
	fs.BoolVar(&ff.strict, "strict", false, "with --json-schema: OpenAI's strict rules (every object closed, every property required)")
	fs.StringVar(&ff.gbnf, "grammar-file", "", "hold the reply to the GBNF grammar in `FILE` (llama.cpp's format; root is the start)")
}

// Given reports whether a format was asked for.
func (ff *FormatFlags) Given() bool { return ff.json || ff.schema != "" || ff.gbnf != "" }

// Grammar reads and compiles the format (nil: none). Two formats, or
// --strict without a schema, are a mistake in the command line.
func (ff *FormatFlags) Grammar() (*grammar.Grammar, error) {
	n := 0
	for _, on := range []bool{ff.json, ff.schema != "", ff.gbnf != ""} {
		if on {
			n++
		}
	}
	switch {
	case n > 1:
		return nil, Usagef("give one of --json, --json-schema and --grammar-file")
	case ff.strict && ff.schema == "":
		return nil, Usagef("--strict is for --json-schema")
	case n == 0:
		return nil, nil
	}
	var src, what string
	switch {
	case ff.json:
		src, what = grammar.JSONObjectGrammar(), "--json"
	case ff.schema != "":
		b, err := regfile.ReadRegular(ff.schema, MaxTextBytes)
		if err != nil {
			return nil, fmt.Errorf("--json-schema: %w", err)
		}
		if ff.strict {
			src, err = grammar.FromJSONSchemaStrict(b)
		} else {
			src, err = grammar.FromJSONSchema(b)
		}
		if err != nil {
			return nil, fmt.Errorf("--json-schema %s: %w", ff.schema, err)
		}
		what = "--json-schema " + ff.schema
	default:
		b, err := regfile.ReadRegular(ff.gbnf, MaxTextBytes)
		if err != nil {
			return nil, fmt.Errorf("--grammar-file: %w", err)
		}
		src, what = string(b), "--grammar-file "+ff.gbnf
	}
	g, err := grammar.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return g, nil
}

// VocabFor is the grammar vocabulary of a tokenizer's tokens: each
// token's bytes, control tokens never produced as text, and the stop
// tokens as the end of generation.
func VocabFor(size int, bytesOf func(int32) []byte, control func(int32) bool, stops []int32) (*grammar.Vocab, error) {
	texts := make([][]byte, size)
	for id := range texts {
		if !control(int32(id)) {
			texts[id] = bytesOf(int32(id))
		}
	}
	v, err := grammar.NewVocab(texts, stops)
	if err != nil {
		return nil, fmt.Errorf("the vocabulary for a grammar: %w", err)
	}
	return v, nil
}
