// Package tokenize is `isagi tokenize`: the token ids of a text, or the
// text of token ids.
package tokenize

import (
	"fmt"
	"strings"

	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/cli/base"
)

// Main is `isagi tokenize`: the token ids of a text, or the text of ids.
func Main(env base.Env, args []string) error {
	fs := env.FlagSet("tokenize", usageHead, usageTail)
	var mf base.ModelFlags
	mf.RegisterSource(fs)
	decode := fs.Bool("decode", false, "read token ids and print their text")
	noSpecial := fs.Bool("no-special", false, "do not add the BOS/EOS the model's metadata asks for")
	parseSpecial := fs.Bool("parse-special", false, "turn control-token text such as <|im_end|> into control tokens (trusted text only)")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	f, tok, err := mf.OpenFile()
	if err != nil {
		return err
	}
	defer f.Close()
	if *decode {
		ids, err := base.ParseIDs(strings.Join(fs.Args(), " "), tok.VocabSize())
		if err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, tok.Decode(ids, tokenizer.DecodeOptions{}))
		return nil
	}
	text := strings.Join(fs.Args(), " ")
	opts := tokenizer.EncodeOptions{AddSpecial: !*noSpecial}
	encode := tok.Encode
	if *parseSpecial {
		encode = tok.EncodeMarkup
	}
	ids, err := encode(text, opts)
	if err != nil {
		return err
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	fmt.Fprintln(env.Stdout, strings.Join(parts, " "))
	return nil
}

// usageHead and usageTail frame the flags in `isagi tokenize --help`.
const (
	usageHead = `Usage: isagi tokenize (--model FILE.gguf | --demo) [flags] TEXT...
       isagi tokenize (--model FILE.gguf | --demo) --decode ID...

Prints the token ids of TEXT (space-separated, one line), or with --decode the
text of the ids. --model may be a tokenizer-only GGUF file. Flags:
`
	usageTail = `
Examples:
  isagi tokenize --model kjv-q8_0.gguf "And God said"
  isagi tokenize --model kjv-q8_0.gguf --decode 1 300 391 394
`
)
