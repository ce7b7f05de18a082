package base

import (
	"flag"
	"fmt"

	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/session"
)

// FormatFlags hold a reply to a form, as a server's response_format does:
// --json (any JSON object), --json-schema F (a document of the JSON Schema
// in F) or --grammar-file F (llama.cpp's GBNF, as llama-cli's flag of that
// name reads it). Every sampled token is masked to what the grammar allows
// (session.Format).
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

// Format reads and compiles the format (nil: none). Two formats, or
// --strict without a schema, are a mistake in the command line.
func (ff *FormatFlags) Format() (*session.Format, error) {
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
	case ff.json:
		return session.JSONObjectFormat()
	case ff.schema != "":
		b, err := regfile.ReadRegular(ff.schema, MaxTextBytes)
		if err != nil {
			return nil, fmt.Errorf("--json-schema: %w", err)
		}
		f, err := session.JSONSchemaFormat(b, ff.strict)
		if err != nil {
			return nil, fmt.Errorf("--json-schema %s: %w", ff.schema, err)
		}
		return f, nil
	case ff.gbnf != "":
		b, err := regfile.ReadRegular(ff.gbnf, MaxTextBytes)
		if err != nil {
			return nil, fmt.Errorf("--grammar-file: %w", err)
		}
		f, err := session.GrammarFormat(string(b))
		if err != nil {
			return nil, fmt.Errorf("--grammar-file %s: %w", ff.gbnf, err)
		}
		return f, nil
	}
	return nil, nil
}
