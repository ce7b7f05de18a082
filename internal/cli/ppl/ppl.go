// Package ppl is `isagi ppl`: perplexity of a model over a text.
package ppl

import (
	"fmt"
	"time"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/cli/base"
)

// Main is `isagi ppl`: perplexity of a model over a text file.
func Main(env base.Env, args []string) error {
	fs := env.FlagSet("ppl", usageHead, "")
	mf := base.ModelFlags{Version: env.Version}
	mf.Register(fs)
	defer mf.Dev.Close()
	file := fs.String("file", "", "text file to score")
	attnres := fs.Float64("attnres", 0, "also score every variant with AttnRes mixing the residual stream at strength `S` (0…1; docs/seeds.md): one more line each, and the stream's RMS by depth")
	parseSpecial := fs.Bool("parse-special", false, "turn control-token text such as <|im_end|> into control tokens, to score chat-formatted text (trusted text only)")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if *file == "" || fs.NArg() != 0 {
		return base.ArgsError(fs, "ppl needs --file TEXT and no arguments")
	}
	text, err := regfile.ReadRegular(*file, base.MaxTextBytes)
	if err != nil {
		return fmt.Errorf("--file: %w", err)
	}
	if !(*attnres >= 0 && *attnres <= 1) {
		return base.Usagef("--attnres %g: a strength from 0 to 1", *attnres)
	}
	vs, err := mf.Variants()
	if err != nil {
		return err
	}
	f, tok, m, st, err := mf.Open()
	if err != nil {
		return err
	}
	defer m.Close()
	encode := tok.Encode
	if *parseSpecial {
		encode = tok.EncodeMarkup
	}
	ids, err := encode(string(text), tokenizer.EncodeOptions{})
	if err != nil {
		return err
	}
	ctx, stop := base.Interruptible()
	defer stop()
	score := func() (generate.PerplexityResult, error) {
		start := time.Now()
		r, err := generate.Perplexity(ctx, st, ids, tok.BOS(), func(done, total int) {
			eta := time.Duration(float64(time.Since(start)) / float64(done) * float64(total-done))
			fmt.Fprintf(env.Stderr, "\r[%-30s] %d/%d windows, %s left ", base.Bar(done, total, 30), done, total, eta.Round(time.Second))
		})
		fmt.Fprintln(env.Stderr)
		if err == nil {
			fmt.Fprintf(env.Stderr, "%d tokens scored in %d windows of %d, %.1f s\n", r.Scored, r.Chunks, st.Cap(), time.Since(start).Seconds())
		}
		return r, err
	}
	// withAttnRes scores the state as it is and then under AttnRes, one
	// line each, and returns the second.
	withAttnRes := func(label string, plain float64) (float64, error) {
		h, err := model.NewAttnRes(m, *attnres, false)
		if err != nil {
			return 0, err
		}
		remove, err := st.AddHook(h)
		if err != nil {
			return 0, err
		}
		r, err := score()
		remove()
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(env.Stdout, "%-22s ppl=%.4f (%+.2f %%)\n", fmt.Sprintf("%s +attnres %g", label, *attnres), r.PPL, 100*(r.PPL/plain-1))
		pl, mx := h.Profile()
		fmt.Fprintf(env.Stdout, "  stream RMS after each block, plain → attnres:")
		for l := range pl {
			fmt.Fprintf(env.Stdout, " %.2f→%.2f", pl[l], mx[l])
		}
		fmt.Fprintln(env.Stdout)
		return r.PPL, nil
	}
	if vs == nil {
		r, err := score()
		if err != nil {
			return err
		}
		if *attnres > 0 {
			label := "dense"
			if mf.Rank != "off" && mf.Rank != "" {
				label = "rank " + mf.Rank
			}
			fmt.Fprintf(env.Stdout, "%-22s ppl=%.4f\n", label, r.PPL)
			if r.PPL, err = withAttnRes(label, r.PPL); err != nil {
				return err
			}
		}
		fmt.Fprintf(env.Stdout, "ppl=%.4f\n", r.PPL)
		return nil
	}
	// Each variant on the same state, one after the other: the same
	// windows, the same tokens, only the compression differs. The dense
	// model comes first, as the row the others are read against.
	var last float64
	for _, v := range append([]base.Variant{base.Dense()}, vs...) {
		fmt.Fprintf(env.Stderr, "isagi: variant %s\n", v.Label)
		if err := mf.UseVariant(f, tok, m, st, v); err != nil {
			return fmt.Errorf("variant %s: %w", v.Label, err)
		}
		r, err := score()
		if err != nil {
			return err
		}
		if n := st.Bypassed(); n > 0 {
			fmt.Fprintf(env.Stderr, "isagi: sink bypass: %d block runs went dense\n", n)
		}
		fmt.Fprintf(env.Stdout, "%-22s ppl=%.4f\n", v.Label, r.PPL)
		last = r.PPL
		if *attnres > 0 {
			if last, err = withAttnRes(v.Label, r.PPL); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(env.Stdout, "ppl=%.4f\n", last)
	return nil
}

// usageHead is `isagi ppl --help` before the flags.
const usageHead = `Usage: isagi ppl (--model FILE.gguf | --demo) --file TEXT [--ctx N] [--kv-type T] [--threads N] [--rank K --slots S --alloc A] [--gauge] [--sink-channels T] [--sink-bypass] [--kv-proj]

Perplexity of the model over a text, as llama.cpp's perplexity tool
computes it: the text is cut into windows of --ctx tokens (default: the
model's context, at most 4096), each starting with BOS, and the second half
of every window is scored. Progress goes to stderr; the result is one line
"ppl=<value>" on stdout.

--attnres S scores the model (and every variant) a second time with
Block Attention Residuals mixing the residual stream at strength S, with
the stream's own direction as the pseudo-query (docs/seeds.md, Paper 3):
one more line per variant, its change, and the stream's RMS after each
block without and with it.

With --rank the model runs GRC-compressed: --slots picks the weights
(qkv; qkv,o,ffn), --alloc the rank per block (uniform; gp from the
weights' spectra; mcr from hidden-state variance over --calib FILE, or over
a short built-in English text when --calib is not given). Built
compressions are cached in <data dir>/geometry, shared with the TUI.

--gauge, --sink-channels T, --sink-bypass and --kv-proj (docs/grc.md) are
measured against the compression without them in the same run: one line
per variant on stdout — "dense" (no compression), "rank K" (the
compression with every mechanism off), each mechanism alone ("+gauge", …),
and "all" when more than one is given — the last one "ppl=<value>" with
every mechanism given on.

Examples:
  isagi ppl --demo --file heldout.txt --ctx 128
  isagi ppl --model kjv-q8_0.gguf --file heldout.txt --ctx 256 --rank 192 --slots qkv,o,ffn --alloc mcr
`
