package cvinterop

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/steer"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/internal/cli/steercmd"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

const (
	// steps is how many greedy tokens each side decodes per prompt.
	steps = 40
	// nearTie is engine/model's rule for comparing with llama.cpp
	// (model_test.go): the top-2 logit margin below which the two engines
	// may legitimately choose differently, since their sums round
	// differently by up to a few hundredths of a logit; a vector added at
	// the wrong place or scale moves logits by whole units.
	nearTie = 0.03
)

// fixture is a model the vectors are tried on, with its prompts and the
// norm of each random direction: large enough that steering changes the
// greedy reply (the test checks that it does), small enough that the reply
// is still driven by the prompt.
type fixture struct {
	rel     string
	prompts []string
	norm    float32
}

// The kjv model (6 layers, SentencePiece) and two archs models of three
// blocks each but different block shapes: gemma2 (post-attention and
// post-FFN norms, soft-capping, sliding window, embeddings scaled by
// √n_embd) and llama (untied output, rope_freqs, byte-level BPE).
var fixturesUsed = []fixture{
	{"kjv/kjv-f32.gguf", []string{"And God said", "The LORD is my shepherd"}, 20},
	{"archs/gemma2.gguf", []string{"Hello world", "The quick brown fox jumps over the lazy dog"}, 20},
	{"archs/llama-rope-freqs.gguf", []string{"Hello world", "The quick brown fox jumps over the lazy dog"}, 10},
}

// opened is a fixture's model on the CPU engine, with its tokenizer and
// the prompts' ids.
type opened struct {
	m       *model.Model
	tok     *tokenizer.Tokenizer
	texts   []string
	prompts [][]int32
	// banned are the tokens whose bytes are not UTF-8 on their own (byte
	// tokens ≥ 0x80): both sides give them −∞, since llama-server answers
	// 500 to a reply that is not valid UTF-8, and a random-weight model
	// picks them often.
	banned map[int32]bool
	name   string // the fixture, relative to the shared fixtures
	path   string
}

func open(t *testing.T, rel string, prompts []string) *opened {
	t.Helper()
	path := fixtures.Path(t, rel)
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	tok, err := tokenizer.FromGGUF(m.File())
	if err != nil {
		t.Fatal(err)
	}
	o := &opened{m: m, tok: tok, texts: prompts, name: rel, path: path, banned: map[int32]bool{}}
	for id := range int32(tok.VocabSize()) {
		if !utf8.Valid(tok.TokenBytes(id)) {
			o.banned[id] = true
		}
	}
	for _, p := range prompts {
		ids, err := tok.Encode(p, tokenizer.EncodeOptions{AddSpecial: true})
		if err != nil {
			t.Fatal(err)
		}
		o.prompts = append(o.prompts, ids)
	}
	return o
}

func (o *opened) shape() steer.Model {
	return steer.Model{Arch: o.m.Arch, Dim: o.m.Dim, Layers: o.m.Layers}
}

// randomVector is a vector with a random direction of the given norm at
// each of layers.
func randomVector(o *opened, seed uint64, norm float32, layers []int) *steer.Vector {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	v := &steer.Vector{Hint: o.m.Arch, Dim: o.m.Dim, Method: "random", Source: "cvinterop"}
	v.Dirs = make([][]float32, max(o.m.Layers, slices.Max(layers)+1))
	for _, l := range layers {
		d := make([]float32, o.m.Dim)
		var n float64
		for i := range d {
			d[i] = float32(rng.NormFloat64())
			n += float64(d[i]) * float64(d[i])
		}
		for i := range d {
			d[i] *= norm / float32(math.Sqrt(n))
		}
		v.Dirs[l] = d
	}
	return v
}

// steering is one way of steering: the files and flags llama-server
// takes, and the same files read, checked and combined by engine/steer.
type steering struct {
	name  string
	flags []string
	files []string
	scale []float32
	r     steer.Range
	// past says that a file has a direction past the model's last
	// layer, which llama.cpp ignores and steer.Check refuses: ISAGI's
	// side then wants Check's refusal and combines without it (Combine
	// drops such a direction, as llama.cpp does).
	past bool
}

// dirs is what ISAGI adds: the files read by steer.Read, checked against
// the model, and combined with their scales over the range.
func (sg *steering) dirs(t *testing.T, o *opened) [][]float32 {
	t.Helper()
	return sg.dirsIn(t, o, sg.r)
}

// dirsIn is dirs over the range r instead of the steering's own.
func (sg *steering) dirsIn(t *testing.T, o *opened, r steer.Range) [][]float32 {
	t.Helper()
	var uses []steer.Use
	for i, f := range sg.files {
		v, err := steer.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		err = v.Check(filepath.Base(f), o.shape())
		switch past := v.Layers() > o.m.Layers; {
		case past && err == nil:
			t.Fatalf("steer.Check takes %s, which has a direction for layer %d of a %d-layer model", filepath.Base(f), v.Layers()-1, o.m.Layers)
		case err != nil && !(past && sg.past):
			t.Fatal(err)
		}
		uses = append(uses, steer.Use{V: v, Scale: sg.scale[i]})
	}
	d, err := steer.Combine(uses, r, o.shape())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// agreement is how ISAGI's greedy reply agreed with llama.cpp's.
type agreement struct {
	equal, total int // leading steps with the same token; llama.cpp's steps
	nearTie      int // first step where either side's top-2 margin is below nearTie (-1: none)
	// maxDMargin is the largest difference between the two sides' margins
	// of llama.cpp's top two tokens, and maxLogit ISAGI's largest |logit|.
	maxDMargin, maxLogit float64
}

func (a agreement) String() string {
	tie := "no near-tie"
	if a.nearTie >= 0 {
		tie = fmt.Sprintf("first near-tie at step %d", a.nearTie)
	}
	return fmt.Sprintf("%d/%d steps equal, %s, top-2 margins within %.2g (logits up to %.1f)", a.equal, a.total, tie, a.maxDMargin, a.maxLogit)
}

func argmax(v []float32) int32 {
	b := 0
	for i, x := range v {
		if x > v[b] {
			b = i
		}
	}
	return int32(b)
}

// margin is the gap between v's two largest values.
func margin(v []float32) float64 {
	a, b := math.Inf(-1), math.Inf(-1)
	for _, x := range v {
		switch y := float64(x); {
		case y > a:
			a, b = y, a
		case y > b:
			b = y
		}
	}
	return a - b
}

// measure runs ISAGI with dirs over prompt, fed llama.cpp's tokens, and
// holds each step's argmax to llama.cpp's token: they may differ only
// where ISAGI's logit of its own choice beats llama.cpp's by less than
// nearTie. Teacher-forced, every step is checked on its own, and the
// leading run of equal steps is what free-running greedy decoding shares.
// bad lists the steps that break the rule.
func measure(t *testing.T, o *opened, dirs [][]float32, prompt []int32, c completion) (a agreement, bad []string) {
	t.Helper()
	s, err := o.m.NewStateOn(len(prompt)+steps+1, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetSteering(dirs); err != nil {
		t.Fatal(err)
	}
	logits := make([]float32, o.m.Vocab)
	forward := func(ids []int32) {
		if err := s.Forward(ids, logits); err != nil {
			t.Fatal(err)
		}
		for id := range o.banned {
			logits[id] = float32(math.Inf(-1))
		}
	}
	forward(prompt)
	a = agreement{total: len(c.Tokens), nearTie: -1}
	diverged := false
	for i, want := range c.Tokens {
		got := argmax(logits)
		first, second, lm, exact := c.top2(i, o.banned)
		if a.nearTie < 0 && (margin(logits) < nearTie || (first >= 0 && lm < nearTie)) {
			a.nearTie = i
		}
		if exact {
			a.maxDMargin = max(a.maxDMargin, math.Abs(float64(logits[first]-logits[second])-lm))
		}
		for _, x := range logits {
			if !math.IsInf(float64(x), -1) {
				a.maxLogit = max(a.maxLogit, math.Abs(float64(x)))
			}
		}
		if got != want {
			if d := logits[got] - logits[want]; d >= nearTie {
				bad = append(bad, fmt.Sprintf("step %d: ISAGI's %d beats llama.cpp's %d by %.4f (llama.cpp's top-2 margin %.4f)", i, got, want, d, lm))
			}
			diverged = true
		} else if !diverged {
			a.equal++
		}
		forward([]int32{want})
	}
	if len(c.Tokens) < steps {
		// llama.cpp stopped on an end-of-generation token, which it does
		// not return: ISAGI's choice there must be one too.
		if got := argmax(logits); !o.tok.IsEndOfGeneration(got) {
			bad = append(bad, fmt.Sprintf("llama.cpp ended its reply after %d tokens; ISAGI goes on with %d", len(c.Tokens), got))
		}
	}
	return a, bad
}

// earlier is dirs with each direction moved one block earlier: what a
// reader that took direction.N to go after block N−1 would add.
func earlier(dirs [][]float32) [][]float32 {
	out := make([][]float32, len(dirs))
	for l := 1; l < len(dirs); l++ {
		out[l-1] = dirs[l]
	}
	return out
}

// wrongMargin is the least a plausible mistake must move the top-2
// margins by for the comparison to count as able to see it: ten times
// the near-tie rule, and far above the agreement measured (≤ 4e-4).
const wrongMargin = 10 * nearTie

// unsteered is ISAGI's plain greedy reply, to check that steering changed
// it.
func unsteered(t *testing.T, o *opened, prompt []int32) []int32 {
	t.Helper()
	s, err := o.m.NewStateOn(len(prompt)+steps+1, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	logits := make([]float32, o.m.Vocab)
	if err := s.Forward(prompt, logits); err != nil {
		t.Fatal(err)
	}
	var out []int32
	for range steps {
		for id := range o.banned {
			logits[id] = float32(math.Inf(-1))
		}
		id := argmax(logits)
		out = append(out, id)
		if o.tok.IsEndOfGeneration(id) {
			break
		}
		if err := s.Forward([]int32{id}, logits); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// firstDifference is the first step at which a and b differ (-1: none).
func firstDifference(a, b []int32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// agree runs each steering in llama-server and in ISAGI over the
// fixture's prompts and holds the replies to each other.
func agree(t *testing.T, server string, o *opened, sgs []steering) {
	t.Helper()
	for _, sg := range sgs {
		t.Run(sg.name, func(t *testing.T) {
			srv := startServer(t, server, o.path, sg.flags...)
			dirs := sg.dirs(t, o)
			for i, p := range o.prompts {
				ids, err := srv.tokenize(o.texts[i])
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(ids) != fmt.Sprint(p) {
					t.Fatalf("prompt %d: llama.cpp's ids %v, ISAGI's %v", i, ids, p)
				}
				c, err := srv.greedy(p, steps, o.banned)
				if err != nil {
					t.Fatalf("%v; llama-server's log ends:\n%s", err, srv.log.String())
				}
				a, bad := measure(t, o, dirs, p, c)
				for _, b := range bad {
					t.Error(b)
				}
				// The same comparison must see the mistakes a reader of
				// the format could make, or its agreement proves nothing.
				type mistake struct {
					what string
					dirs [][]float32
				}
				wrong := []mistake{{"each direction one block early", earlier(dirs)}}
				if sg.r != (steer.Range{}) {
					wrong = append(wrong, mistake{"the layer range ignored", sg.dirsIn(t, o, steer.Range{})})
				}
				for _, w := range wrong {
					if wa, _ := measure(t, o, w.dirs, p, c); wa.maxDMargin < wrongMargin {
						t.Errorf("prompt %d: with %s the top-2 margins move by only %.3g: the comparison cannot tell", i, w.what, wa.maxDMargin)
					} else {
						t.Logf("with %s the top-2 margins move by up to %.3g", w.what, wa.maxDMargin)
					}
				}
				plain := unsteered(t, o, p)
				d := firstDifference(plain, c.Tokens)
				if d < 0 {
					t.Errorf("prompt %d: the steered reply is the unsteered one; the vector is too weak to test anything", i)
				}
				t.Logf("%s %q: %v; steering changes the reply from step %d", filepath.Base(o.name), o.texts[i], a, d)
			}
		})
	}
}

// TestVectorsAgree: control vectors written by engine/steer steer
// llama-server and ISAGI alike. Per fixture: one vector at every layer
// (--control-vector); two summed with scales over a layer range that
// leaves some of their layers out (--control-vector-scaled,
// --control-vector-layer-range); one with a direction past the model's
// last layer, which llama.cpp ignores.
func TestVectorsAgree(t *testing.T) {
	srv := llamaTool(t, "llama-server")
	for _, fx := range fixturesUsed {
		t.Run(strings.TrimSuffix(filepath.Base(fx.rel), ".gguf"), func(t *testing.T) {
			o := open(t, fx.rel, fx.prompts)
			t.Logf("%d tokens are not UTF-8 on their own and banned on both sides", len(o.banned))
			L := o.m.Layers
			norm := fx.norm
			var all, some []int
			for l := 1; l < L; l++ {
				all = append(all, l)
				if l != 3 {
					some = append(some, l)
				}
			}
			dir := t.TempDir()
			v1, v2 := filepath.Join(dir, "v1.gguf"), filepath.Join(dir, "v2.gguf")
			if err := randomVector(o, 1, norm, all).Write(v1); err != nil {
				t.Fatal(err)
			}
			if err := randomVector(o, 2, norm, some).Write(v2); err != nil {
				t.Fatal(err)
			}
			// v3 is v1 with one more direction, for layer L, which the
			// model does not have.
			v3 := filepath.Join(dir, "v3.gguf")
			if err := randomVector(o, 1, norm, append(all, L)).Write(v3); err != nil {
				t.Fatal(err)
			}
			// The range starts after layer 1 and, on a deep enough model,
			// ends before the last layer: both ends leave a direction out.
			end := max(2, L-2)
			agree(t, srv, o, []steering{
				{name: "one", flags: []string{"--control-vector", v1}, files: []string{v1}, scale: []float32{1}},
				{
					name:  "scaled-sum-range",
					flags: []string{"--control-vector-scaled", v1 + ":0.75," + v2 + ":-1.5", "--control-vector-layer-range", "2", strconv.Itoa(end)},
					files: []string{v1, v2}, scale: []float32{0.75, -1.5}, r: steer.Range{Start: 2, End: end},
				},
				{name: "past-last-layer", flags: []string{"--control-vector", v3}, files: []string{v3}, scale: []float32{1}, past: true},
			})
		})
	}
}

// TestGeneratorVector: a vector made by llama-cvector-generator (--method
// mean, a few positive and negative lines) on the kjv model is read by
// engine/steer and steers ISAGI as it steers llama-server.
func TestGeneratorVector(t *testing.T) {
	gen := llamaTool(t, "llama-cvector-generator")
	srv := llamaTool(t, "llama-server")
	const rel = "kjv/kjv-f32.gguf"
	prompts := []string{"And God said", "Jesus answered and said unto them"}
	o := open(t, rel, prompts)
	dir := t.TempDir()
	pos, neg, out := filepath.Join(dir, "positive.txt"), filepath.Join(dir, "negative.txt"), filepath.Join(dir, "cv.gguf")
	write := func(path string, lines ...string) {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(pos,
		"Blessed are the merciful: for they shall obtain mercy.",
		"The LORD is my shepherd; I shall not want.",
		"Rejoice in the Lord alway: and again I say, Rejoice.",
		"Love is patient, and kind, and rejoiceth in the truth.")
	write(neg,
		"Cursed is every one that continueth not in all things.",
		"The wicked shall be turned into hell, and all the nations that forget God.",
		"Woe unto you, for ye shall mourn and weep.",
		"The wrath of God is revealed from heaven against all ungodliness.")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gen, "-m", o.path, "-t", "1", "-c", "256",
		"--method", "mean", "--positive-file", pos, "--negative-file", neg, "-o", out)
	cmd.Env = cleanEnv()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("llama-cvector-generator: %v\n%s", err, tailOf(b))
	}
	v, err := steer.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if v.Hint != "llama" || v.Dim != o.m.Dim || v.Layers() != o.m.Layers {
		t.Fatalf("the generator's vector: hint %q, width %d, %d layers; want llama, %d, %d", v.Hint, v.Dim, v.Layers(), o.m.Dim, o.m.Layers)
	}
	for l := 1; l < o.m.Layers; l++ {
		if v.Dirs[l] == nil {
			t.Fatalf("the generator's vector has no direction.%d", l)
		}
	}
	// --method mean writes unit directions; the kjv stream is far longer.
	const scale = 4
	agree(t, srv, o, []steering{{
		name:  "generator",
		flags: []string{"--control-vector-scaled", out + ":" + strconv.Itoa(scale)},
		files: []string{out}, scale: []float32{scale},
	}})
}

// TestMadeVector: vectors made by `isagi steer make` (mean and pca, from
// the same kind of positive and negative lines llama-cvector-generator
// reads) on the kjv model steer llama-server as they steer ISAGI.
func TestMadeVector(t *testing.T) {
	srv := llamaTool(t, "llama-server")
	const rel = "kjv/kjv-f32.gguf"
	prompts := []string{"And God said", "Jesus answered and said unto them"}
	o := open(t, rel, prompts)
	dir := t.TempDir()
	pos, neg := filepath.Join(dir, "positive.txt"), filepath.Join(dir, "negative.txt")
	write := func(path string, lines ...string) {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(pos,
		"Blessed are the merciful: for they shall obtain mercy.",
		"The LORD is my shepherd; I shall not want.",
		"Rejoice in the Lord alway: and again I say, Rejoice.")
	write(neg,
		"Cursed is every one that continueth not in all things.",
		"Woe unto you, for ye shall mourn and weep.",
		"The wrath of God is revealed from heaven against all ungodliness.")
	var cases []steering
	for _, method := range []string{"mean", "pca"} {
		out := filepath.Join(dir, method+".gguf")
		if _, errs, err := clitest.Run(t, steercmd.Main, "make", "--model", o.path, "--positive", pos, "--negative", neg, "--method", method, "--out", out); err != nil {
			t.Fatalf("isagi steer make --method %s: %v\n%s", method, err, errs)
		}
		const scale = 4 // unit directions; the kjv stream is far longer
		cases = append(cases, steering{
			name:  "isagi steer make " + method,
			flags: []string{"--control-vector-scaled", out + ":" + strconv.Itoa(scale)},
			files: []string{out}, scale: []float32{scale},
		})
	}
	agree(t, srv, o, cases)
}

func tailOf(b []byte) []byte {
	if len(b) > tailBytes {
		return b[len(b)-tailBytes:]
	}
	return b
}
