package generate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// TestFlowBench measures the flow-map drafter beside the n-gram one and
// plain decoding (generate.BenchSpec: one process, plain and speculative
// decoding alternating per prompt). It is a measurement, not a check: it
// runs only with ISAGI_FLOW_BENCH=kjv or chat (scripts/bench-spec.sh
// runs the chat one; the kjv rows come from isagi bench there).
//
//   - kjv (kjv-q8_0): evaluated on the first 16 lines of kjv/heldout.txt
//     with 24 tokens (24-token prompts, 64 greedy tokens, as bench-spec.sh);
//     calibrated on lines 101–199 only (their first 24 tokens as prompts).
//   - chat (testdata/models/chat-q8_0.gguf): prompts of
//     scripts/fixtures/chat/heldout/*.jsonl under the model's chat
//     template; every other prompt of each file calibrates (even lines),
//     odd ones spread over the files evaluate (FLOW_PROMPTS, 16 by default);
//     48 greedy tokens each, no stop token, as bench decodes.
//
// FLOW_MODE is how the map calibrates: gen (the model's own greedy
// continuations of the calibration prompts; the default), text (the
// calibration lines as written; kjv only) or both. FLOW_BITS, FLOW_GATE,
// FLOW_LAYER, FLOW_GAMMAS ("2 4 0") and FLOW_DRAFTERS ("ngram flow
// flow+ngram") vary the rest.
func TestFlowBench(t *testing.T) {
	which := os.Getenv("ISAGI_FLOW_BENCH")
	if which == "" {
		t.Skip("a measurement: set ISAGI_FLOW_BENCH=kjv or chat")
	}
	env := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	atoi := func(k string, def int) int {
		n, err := strconv.Atoi(env(k, strconv.Itoa(def)))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		return n
	}
	mode := env("FLOW_MODE", "gen")
	gate, err := strconv.ParseFloat(env("FLOW_GATE", "0.5"), 64)
	if err != nil {
		t.Fatal(err)
	}
	o := FlowOptions{Bits: atoi("FLOW_BITS", 0), Layer: atoi("FLOW_LAYER", 0)}

	var (
		m           *model.Model
		calib, eval [][]int32
		genLen      int
		cut         = 1 << 30 // calibration prompts' tokens
	)
	switch which {
	case "kjv":
		m = openModel(t, "kjv/kjv-q8_0.gguf")
		tk, err := tokenizer.FromGGUF(m.File())
		if err != nil {
			t.Fatal(err)
		}
		genLen, cut = 64, 24 // prompts shaped as the evaluation's
		lines := readLines(t, fixture(t, "kjv/heldout.txt"))
		for i, l := range lines {
			ids, err := tk.Encode(strings.TrimSpace(l), tokenizer.EncodeOptions{AddSpecial: true})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case i < 100 && len(ids) >= 24 && len(eval) < atoi("FLOW_PROMPTS", 16):
				eval = append(eval, ids[:24])
			case i >= 100:
				calib = append(calib, ids)
			}
		}
	case "chat":
		path, err := filepath.Abs(filepath.Join("..", "..", "testdata", "models", "chat-q8_0.gguf"))
		if err != nil {
			t.Fatal(err)
		}
		if m, err = model.Open(path); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		tk, err := tokenizer.FromGGUF(m.File())
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := chat.FromGGUF(m.File(), tk)
		if err != nil {
			t.Fatal(err)
		}
		genLen = 48
		files, err := filepath.Glob(filepath.Join("..", "..", "scripts", "fixtures", "chat", "heldout", "*.jsonl"))
		if err != nil || len(files) == 0 {
			t.Fatalf("chat prompts: %v", err)
		}
		var odd [][]int32
		for _, f := range files {
			for i, l := range readLines(t, f) {
				var rec struct {
					Prompt string `json:"prompt"`
				}
				if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Prompt == "" {
					continue
				}
				p, err := tmpl.Render([]chat.Message{{Role: "user", Content: rec.Prompt}}, chat.Options{AddGenerationPrompt: true})
				if err != nil {
					t.Fatal(err)
				}
				ids, err := tk.EncodePrompt(p.Text, p.User, tokenizer.EncodeOptions{AddSpecial: true})
				if err != nil {
					t.Fatal(err)
				}
				if i%2 == 0 {
					calib = append(calib, ids)
				} else {
					odd = append(odd, ids)
				}
			}
		}
		// Spread the evaluation over the files: every k-th odd prompt.
		n := atoi("FLOW_PROMPTS", 16)
		for i := range n {
			eval = append(eval, odd[i*len(odd)/n])
		}
	default:
		t.Fatalf("ISAGI_FLOW_BENCH=%q: want kjv or chat", which)
	}

	st, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	scratch, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewFlowBuilder(scratch, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, ids := range calib {
		if mode == "text" || mode == "both" {
			if err := b.AddText(ids); err != nil {
				t.Fatal(err)
			}
		}
		if mode == "gen" || mode == "both" {
			if err := b.AddGenerated(context.Background(), ids[:min(len(ids), cut)], genLen, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	fm, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	fs := fm.Stats()
	t.Logf("%s: %d calibration sequences (%s), %d states, keys per level %v; %d evaluation prompts", which, fs.Sequences, mode, fs.Positions, fs.Keys, len(eval))
	fmt.Println("| drafter | γ | α | tokens/step | plain tok/s | spec tok/s | ratio | map / fallback / none steps |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, dn := range strings.Fields(env("FLOW_DRAFTERS", "ngram flow flow+ngram")) {
		for _, gs := range strings.Fields(env("FLOW_GAMMAS", "2 4 0")) {
			gamma, err := strconv.Atoi(gs)
			if err != nil {
				t.Fatal(err)
			}
			var d Drafter
			var fd *FlowDrafter
			var remove func()
			switch dn {
			case "ngram":
				d = NewNGramDrafter()
			case "flow", "flow+ngram":
				var fb Drafter
				if dn == "flow+ngram" {
					fb = NewNGramDrafter()
				}
				if fd, err = NewFlowDrafter(fm, gate, fb); err != nil {
					t.Fatal(err)
				}
				if remove, err = fd.Attach(st); err != nil {
					t.Fatal(err)
				}
				d = fd
			default:
				t.Fatalf("FLOW_DRAFTERS: %q", dn)
			}
			r, err := BenchSpec(context.Background(), st, sample.Params{}, eval, genLen, SpecOptions{Drafter: d, Gamma: gamma})
			if remove != nil {
				remove()
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Mismatches != 0 {
				t.Errorf("%s γ %d: %d outputs differ from plain greedy", dn, gamma, r.Mismatches)
			}
			g := strconv.Itoa(gamma)
			if gamma == 0 {
				g = fmt.Sprintf("live (last %d)", r.Spec.Gamma)
			}
			use := ""
			if fd != nil {
				use = fmt.Sprintf("%d / %d / %d", fd.Drafts, fd.Fallbacks, fd.Declined)
			}
			fmt.Printf("| %s | %s | %.3f | %.2f | %.0f | %.0f | **%.2f** | %s |\n", d.Name(), g, r.Alpha, r.Spec.TokensPerStep(), r.PlainTokS, r.SpecTokS, r.Ratio, use)
		}
	}
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			out = append(out, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
