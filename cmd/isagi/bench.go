package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/isagi-lab/isagi/engine/grc"
	"io"
	"time"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/tensor"
)

func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var mf modelFlags
	mf.register(fs)
	promptLen := fs.Int("p", 128, "prompt tokens to prefill")
	genLen := fs.Int("n", 64, "tokens to decode")
	asJSON := fs.Bool("json", false, "print one JSON object (prefill_tok_s, decode_tok_s, …)")
	noProbe := fs.Bool("no-probe", false, "skip the memory-bandwidth probe")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprint(w, `Usage: isagi bench (--model FILE.gguf | --demo) [-p 128] [-n 64] [--json] [--threads N] [--rank K ...]

Measures prefill and decode speed, the weight bandwidth decoding reaches
(weights streamed per token × tokens per second) and its ratio to this
machine's memory bandwidth (a STREAM triad run in the same process).
Flags:
`)
		fs.PrintDefaults()
		fmt.Fprint(w, `
With --rank the model runs GRC-compressed (see --slots and --alloc; the
compression is read from or written to the same cache the TUI uses) and
the weights per token count the compressed matrices.

Examples:
  isagi bench --demo --json
  isagi bench --demo --rank 192 --slots qkv,o,ffn --alloc gp
`)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return argsError(fs, "bench takes no arguments, got %q", fs.Args())
	}
	mf.ctxDefault = *promptLen + *genLen
	m, tok, st, err := mf.open()
	if err != nil {
		return err
	}
	defer m.Close()

	// One warm-up pass maps the weights in and grows every buffer.
	if _, err := generate.Bench(context.Background(), st, tok.BOS(), min(*promptLen, 8), min(*genLen, 4)); err != nil {
		return err
	}
	stats, err := generate.Bench(context.Background(), st, tok.BOS(), *promptLen, *genLen)
	if err != nil {
		return err
	}
	r := benchReport{
		Model:       mf.label(),
		Arch:        m.Arch,
		WeightType:  m.WeightType(),
		Threads:     st.Kernels().Pool().Size(),
		Kernels:     st.Kernels().Path(),
		PromptToks:  stats.PromptTokens,
		DecodeToks:  stats.Generated,
		PrefillTokS: stats.PrefillTokPerSec(),
		DecodeTokS:  stats.DecodeTokPerSec(),
		TTFTms:      float64(stats.TimeToFirst.Microseconds()) / 1000,
	}
	// Under GRC a token reads the compressed matrices instead of the ones
	// they replace: count those bytes, not the file's.
	weights := m.WeightBytes()
	if g := grc.Of(st); g != nil {
		weights += g.BytesAfter - g.BytesBefore
		r.GRC = g.String()
		r.GRCRanks = g.Plan.Ranks
		r.GRCWeightRatio = float64(weights) / float64(m.WeightBytes())
	}
	r.WeightMB = float64(weights) / 1e6
	r.WeightGBs = r.DecodeTokS * float64(weights) / 1e9
	if !*noProbe {
		bw, err := tensor.ProbeBandwidth(st.Kernels().Pool(), 256<<20, time.Second)
		if err != nil {
			return err
		}
		r.TriadGBs = bw.Triad / 1e9
		r.RatioToTriad = r.WeightGBs / r.TriadGBs
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	fmt.Fprintf(stdout, "model        %s (%s, %s, %.1f MB of weights per token)\n", r.Model, r.Arch, r.WeightType, r.WeightMB)
	if r.GRC != "" {
		fmt.Fprintf(stdout, "compression  %s\n", r.GRC)
	}
	fmt.Fprintf(stdout, "threads      %d (%s kernels)\n", r.Threads, r.Kernels)
	fmt.Fprintf(stdout, "prefill      %d tokens, %.1f tok/s\n", r.PromptToks, r.PrefillTokS)
	fmt.Fprintf(stdout, "decode       %d tokens, %.1f tok/s (first token after %.0f ms)\n", r.DecodeToks, r.DecodeTokS, r.TTFTms)
	fmt.Fprintf(stdout, "weights      %.2f GB/s while decoding\n", r.WeightGBs)
	if !*noProbe {
		fmt.Fprintf(stdout, "memory       %.2f GB/s (triad); decode reaches %.0f%% of it\n", r.TriadGBs, 100*r.RatioToTriad)
	}
	return nil
}

type benchReport struct {
	Model        string  `json:"model"`
	Arch         string  `json:"arch"`
	WeightType   string  `json:"weight_type"`
	Threads      int     `json:"threads"`
	Kernels      string  `json:"kernels"`
	PromptToks   int     `json:"prompt_tokens"`
	DecodeToks   int     `json:"decode_tokens"`
	PrefillTokS  float64 `json:"prefill_tok_s"`
	DecodeTokS   float64 `json:"decode_tok_s"`
	TTFTms       float64 `json:"time_to_first_token_ms"`
	WeightMB     float64 `json:"weight_mb_per_token"`
	WeightGBs    float64 `json:"weight_gb_s"`
	TriadGBs     float64 `json:"triad_gb_s,omitempty"`
	RatioToTriad float64 `json:"ratio_to_triad,omitempty"`
	// GRC describes the compression in use (--rank), GRCRanks its rank per
	// block and GRCWeightRatio the bytes a token reads relative to the
	// uncompressed model.
	GRC            string  `json:"grc,omitempty"`
	GRCRanks       []int   `json:"grc_ranks,omitempty"`
	GRCWeightRatio float64 `json:"grc_weight_ratio,omitempty"`
}
