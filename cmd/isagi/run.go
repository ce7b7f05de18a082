package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// modelFlags are the flags every command that loads a model shares.
type modelFlags struct {
	model   string
	threads int
	ctx     int
}

func (mf *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&mf.model, "model", os.Getenv("ISAGI_MODEL"), "GGUF model file (default $ISAGI_MODEL)")
	fs.IntVar(&mf.threads, "threads", 0, "worker threads (default: the number of cores)")
	fs.IntVar(&mf.ctx, "ctx", 0, "context window in tokens (default: the model's, at most 4096)")
}

// open loads the model with its tokenizer and a state.
func (mf *modelFlags) open() (*model.Model, *tokenizer.Tokenizer, *model.State, error) {
	if mf.model == "" {
		return nil, nil, nil, errors.New("no model: pass --model FILE.gguf or set ISAGI_MODEL")
	}
	m, err := model.Open(mf.model)
	if err != nil {
		return nil, nil, nil, err
	}
	tok, err := tokenizer.FromGGUF(m.File())
	if err != nil {
		m.Close()
		return nil, nil, nil, err
	}
	ctx := mf.ctx
	if ctx <= 0 {
		ctx = min(m.CtxLen, 4096)
	}
	st, err := m.NewState(ctx, tensor.NewKernels(tensor.NewPool(mf.threads)))
	if err != nil {
		m.Close()
		return nil, nil, nil, err
	}
	return m, tok, st, nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var mf modelFlags
	mf.register(fs)
	prompt := fs.String("prompt", "", "text to continue (BOS is added as the model asks)")
	promptIDs := fs.String("prompt-ids", "", "comma-separated token ids to feed instead of --prompt")
	printIDs := fs.Bool("ids", false, "print the generated token ids (space-separated, one line) instead of text")
	n := fs.Int("n", 256, "most tokens to generate")
	p := sample.Params{}
	fs.Func("temp", "sampling temperature; 0 is greedy (default 0.8)", floatFlag(&p.Temperature))
	fs.IntVar(&p.TopK, "top-k", 40, "keep the k most likely tokens; 0 is off")
	fs.Func("top-p", "nucleus sampling threshold; 1 is off (default 0.95)", floatFlag(&p.TopP))
	fs.Func("min-p", "drop tokens below this fraction of the best one's probability (default 0.05)", floatFlag(&p.MinP))
	fs.Func("repeat-penalty", "penalty on tokens of the last --repeat-window; 1 is off (default 1)", floatFlag(&p.RepeatPenalty))
	fs.IntVar(&p.RepeatWindow, "repeat-window", 64, "tokens the repeat penalty looks back over")
	seed := fs.Int64("seed", -1, "random seed; the same seed gives the same tokens (default: from the clock)")
	verbose := fs.Bool("v", false, "print timing statistics to stderr")
	p.Temperature, p.TopP, p.MinP, p.RepeatPenalty = 0.8, 0.95, 0.05, 1
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: isagi run --model FILE.gguf [--prompt TEXT | --prompt-ids 1,2,3] [flags]

Streams the model's continuation of a prompt to stdout. An empty prompt
starts from BOS. Flags:
`)
		fs.PrintDefaults()
		fmt.Fprint(stderr, `
Examples:
  isagi run --model kjv-q8_0.gguf --prompt "And God said" -n 48
  isagi run --model kjv-f32.gguf --prompt-ids 1,300,391,394 --temp 0 --ids
  echo "The LORD is my shepherd" | isagi run --model kjv-q8_0.gguf --prompt - --seed 7
`)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *seed >= 0 {
		p.Seed = uint64(*seed)
	} else {
		p.Seed = uint64(time.Now().UnixNano())
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if *prompt != "" && *promptIDs != "" {
		return errors.New("give --prompt or --prompt-ids, not both")
	}
	if *prompt == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		*prompt = strings.TrimRight(string(b), "\n")
	}

	m, tok, st, err := mf.open()
	if err != nil {
		return err
	}
	defer m.Close()

	var ids []int32
	switch {
	case *promptIDs != "":
		ids, err = parseIDs(*promptIDs, m.Vocab)
	case *prompt != "":
		ids, err = tok.Encode(*prompt, tokenizer.EncodeOptions{AddSpecial: true})
	}
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		ids = []int32{tok.BOS()}
	}

	gen, err := generate.New(st, p)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	dec := tok.NewDecoder(tokenizer.DecodeOptions{Continuation: *prompt != ""})
	first := true
	emit := func(id int32) error {
		if *printIDs {
			if !first {
				out.WriteByte(' ')
			}
			first = false
			_, err := out.WriteString(strconv.Itoa(int(id)))
			return err
		}
		if _, err := out.Write(dec.Write(id)); err != nil {
			return err
		}
		return out.Flush() // stream: the reader sees each token as it comes
	}
	stats, err := gen.Generate(ctx, ids, generate.Options{MaxTokens: *n, Stop: tok.EndOfGeneration()}, emit)
	if !*printIDs {
		out.Write(dec.Flush())
	}
	out.WriteByte('\n')
	out.Flush()
	if *verbose {
		fmt.Fprintf(stderr, "%d prompt tokens, %d generated (%s); first token %.0f ms; prefill %.1f tok/s; decode %.1f tok/s\n",
			stats.PromptTokens, stats.Generated, stats.Reason, float64(stats.TimeToFirst.Microseconds())/1000,
			stats.PrefillTokPerSec(), stats.DecodeTokPerSec())
	}
	if errors.Is(err, model.ErrContextFull) {
		fmt.Fprintf(stderr, "isagi: stopped: the %d-token context is full (raise --ctx)\n", st.Cap())
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func floatFlag(dst *float32) func(string) error {
	return func(s string) error {
		v, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return err
		}
		*dst = float32(v)
		return nil
	}
}

// parseIDs reads "1,300,400" (spaces allowed) into token ids below vocab.
func parseIDs(s string, vocab int) ([]int32, error) {
	var ids []int32
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		v, err := strconv.ParseInt(f, 10, 32)
		if err != nil || v < 0 || int(v) >= vocab {
			return nil, fmt.Errorf("--prompt-ids: %q is not a token id in [0, %d)", f, vocab)
		}
		ids = append(ids, int32(v))
	}
	return ids, nil
}
