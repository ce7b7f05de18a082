package evalcmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/ugt"
)

const evalInterchangeUsage = `Usage: isagi eval interchange --model A.gguf --model-b B.gguf [--text TEXT] [flags]

UGT across two independently trained models (docs/geometry.md, "UGT across
two independently trained models"). A and B must share the tokenizer (the
same ids for every text); they may be trained from different seeds, so their
residual streams differ by an unknown rotation and their bases can only be
compared after one is mapped onto the other.

Per probe layer (--layers, default the last block), on the calibration
prompts (the shipped training split, read as plain text after BOS):
  - the prompts are split in two halves (even and odd index). On the first
    half's tokens (and the first half of --text's lines) an orthogonal map
    with one scale is fitted from B's states to A's (Procrustes);
  - on the second half, both models' UGT bases (top-k SVD of the prompts'
    mean states) are compared: raw overlap ‖B_Aᵀ B_B‖²_F / k, aligned
    overlap ‖B_Aᵀ R B_B‖²_F / k, chance k/d, the same overlap with the map
    fitted on shuffled token pairs (a null), A's basis from one half against
    A's from the other (sampling ceiling) and, with --ref, A against another
    file of A (a quantisation) as the earlier reference.
With --text, on the second half of its lines, B's mapped state is put into
A's forward pass at the probe layer and the change of A's next-token
distribution measured (cross-entropy, perplexity, KL from A, top-1
agreement): A's UGT component replaced by B's (aligned and not), by the
mean (ablation), along a random k-subspace, and A's whole state replaced.
`

// cmdEvalInterchange is `isagi eval interchange`.
func cmdEvalInterchange(env base.Env, args []string) error {
	fs := env.FlagSet("eval interchange", evalInterchangeUsage, "")
	pathA := fs.String("model", "", "model A (`FILE`.gguf): its coordinates and its head are the reference")
	pathB := fs.String("model-b", "", "model B (`FILE`.gguf), trained independently, same tokenizer")
	pathRef := fs.String("ref", "", "optional: another file of model A (`FILE`.gguf, e.g. a quantisation), the within-model reference")
	textFile := fs.String("text", "", "held-out prose (`TEXT`, one passage per line) for the interchange measurement")
	layersArg := fs.String("layers", "", "probe blocks, comma-separated, or \"all\" (default: the last block)")
	k := fs.Int("k", 64, "UGT basis size k")
	seed := fs.Uint64("seed", 1, "seed of the shuffled-pairs null and the random subspace")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return base.ArgsError(fs, "eval interchange takes no arguments, got %q", fs.Args())
	}
	if *pathA == "" || *pathB == "" {
		return base.Usagef("eval interchange needs --model A.gguf and --model-b B.gguf")
	}
	if *k < 1 {
		return base.Usagef("--k %d: want 1 or more", *k)
	}
	var text []string
	if *textFile != "" {
		var err error
		if text, err = readLines(*textFile); err != nil {
			return err
		}
		if len(text) < 2 {
			return base.Usagef("--text %s: need at least 2 lines (half fit the map, half measure)", *textFile)
		}
	}
	set, err := prompts.Default()
	if err != nil {
		return err
	}
	var ps []string
	for _, z := range set.Zones {
		ps = append(ps, z.Train...)
	}
	for _, c := range set.Categories {
		for _, p := range c.Train {
			ps = append(ps, p.Harm, p.Benign)
		}
	}
	a, err := openXModel(*pathA)
	if err != nil {
		return err
	}
	defer a.close()
	b, err := openXModel(*pathB)
	if err != nil {
		return err
	}
	defer b.close()
	var ref *xModel
	if *pathRef != "" {
		if ref, err = openXModel(*pathRef); err != nil {
			return err
		}
		defer ref.close()
	}
	layers, err := parseXLayers(*layersArg, a.m.Layers)
	if err != nil {
		return err
	}
	for _, o := range []*xModel{b, ref} {
		if o != nil && (o.m.Dim != a.m.Dim || o.m.Layers != a.m.Layers || o.m.Vocab != a.m.Vocab) {
			return fmt.Errorf("eval interchange: %s (width %d, %d blocks, vocabulary %d) and %s (%d, %d, %d) differ in shape",
				o.path, o.m.Dim, o.m.Layers, o.m.Vocab, a.path, a.m.Dim, a.m.Layers, a.m.Vocab)
		}
	}
	ctx, stop := base.Interruptible()
	defer stop()
	rep, err := runInterchange(ctx, a, b, ref, ps, text, layers, *k, *seed, base.ProgressLine(env.Stderr))
	fmt.Fprintln(env.Stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		return base.PrintJSON(env.Stdout, rep)
	}
	printInterchange(env.Stdout, rep)
	return nil
}

// xModel is one model of the comparison with its own state.
type xModel struct {
	path string
	m    *model.Model
	tk   *tokenizer.Tokenizer
	st   *model.State
}

func openXModel(path string) (*xModel, error) {
	m, err := model.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval interchange: %w", err)
	}
	tk, err := tokenizer.FromGGUF(m.File())
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("eval interchange: %s: %w", path, err)
	}
	st, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("eval interchange: %s: %w", path, err)
	}
	return &xModel{path: path, m: m, tk: tk, st: st}, nil
}

func (x *xModel) close() {
	x.st.Close()
	x.m.Close()
}

func parseXLayers(s string, n int) ([]int, error) {
	switch s {
	case "":
		return []int{n - 1}, nil
	case "all":
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		l, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || l < 0 || l >= n {
			return nil, base.Usagef("--layers: %q is not a block 0…%d", f, n-1)
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out, nil
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval interchange: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval interchange: %s: %w", path, err)
	}
	return out, nil
}

// tapHook keeps every position's residual stream at some layers.
type tapHook struct {
	layers []int
	rows   map[int][][]float32
}

func newTap(layers []int) *tapHook {
	return &tapHook{layers: layers, rows: make(map[int][][]float32, len(layers))}
}

func (h *tapHook) HookLayers() []int { return h.layers }
func (h *tapHook) ReadOnly() bool    { return true }
func (h *tapHook) AfterBlock(layer, _ int, x []float32) {
	h.rows[layer] = append(h.rows[layer], slices.Clone(x))
}

// swapHook puts y[pos] (a state in A's coordinates) into A's residual
// stream after block layer: along basis b when b is set, whole otherwise.
type swapHook struct {
	layer  int
	b      *mat.Dense
	y      [][]float64
	xs     []float64
	failed error
}

func (h *swapHook) HookLayers() []int { return []int{h.layer} }
func (h *swapHook) AfterBlock(layer, pos int, x []float32) {
	if layer != h.layer || pos >= len(h.y) {
		return
	}
	y := h.y[pos]
	if h.b == nil {
		for i := range x {
			x[i] = float32(y[i])
		}
		return
	}
	for i, v := range x {
		h.xs[i] = float64(v)
	}
	if err := ugt.SwapComponent(h.b, h.xs, y); err != nil && h.failed == nil {
		h.failed = err
	}
	for i, v := range h.xs {
		x[i] = float32(v)
	}
}

// seqs tokenises texts as plain text after BOS, cut to the window, and
// checks that every other model's tokenizer gives the same ids.
func seqs(texts []string, window int, ms ...*xModel) ([][]int32, error) {
	out := make([][]int32, 0, len(texts))
	for _, t := range texts {
		var first []int32
		for i, x := range ms {
			if x == nil {
				continue
			}
			ids, err := x.tk.Encode(t, tokenizer.EncodeOptions{AddSpecial: true})
			if err != nil {
				return nil, fmt.Errorf("eval interchange: %s: %w", x.path, err)
			}
			if len(ids) > window {
				ids = ids[:window]
			}
			if i == 0 {
				first = ids
			} else if !slices.Equal(ids, first) {
				return nil, fmt.Errorf("eval interchange: %s and %s tokenise %q differently: the models must share a tokenizer", x.path, ms[0].path, t)
			}
		}
		if len(first) > 1 {
			out = append(out, first)
		}
	}
	return out, nil
}

// tap runs every sequence through x and returns, per layer, every
// sequence's per-position states.
func tap(ctx context.Context, x *xModel, ss [][]int32, layers []int) (map[int][][][]float32, error) {
	h := newTap(layers)
	remove, err := x.st.AddHook(h)
	if err != nil {
		return nil, err
	}
	defer remove()
	out := make(map[int][][][]float32, len(layers))
	for _, s := range ss {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(h.rows)
		x.st.Reset()
		if err := x.st.Forward(s, nil); err != nil {
			return nil, fmt.Errorf("eval interchange: %s: %w", x.path, err)
		}
		for _, l := range layers {
			out[l] = append(out[l], h.rows[l])
		}
	}
	return out, nil
}

// XOverlap is one probe layer's overlaps.
type XOverlap struct {
	Layer int `json:"layer"`
	// FitTokens is the paired token states the map was fitted on.
	FitTokens int `json:"fit_tokens"`
	// FitResidual and HeldoutResidual are the shares of A's centred
	// variance the map leaves unexplained, on the fitting tokens and on the
	// held-out half's.
	FitResidual     float64 `json:"fit_residual"`
	HeldoutResidual float64 `json:"heldout_residual"`
	Scale           float64 `json:"scale"`
	Raw             float64 `json:"raw"`
	Aligned         float64 `json:"aligned"`
	AlignedShuffled float64 `json:"aligned_shuffled_pairs"`
	Chance          float64 `json:"chance"`
	SelfHalves      float64 `json:"a_half_vs_half"`
	// Ref is A's basis against the --ref file's on the same prompts (raw:
	// one model, no map), absent without --ref.
	Ref *float64 `json:"ref,omitempty"`
}

// XVariant is one intervention's effect on A's next-token distribution.
type XVariant struct {
	Layer     int     `json:"layer"`
	Name      string  `json:"name"`
	CE        float64 `json:"ce"`
	PPL       float64 `json:"ppl"`
	KL        float64 `json:"kl_from_a"`
	Agreement float64 `json:"top1_agreement"`
}

// XReport is `eval interchange`'s result.
type XReport struct {
	A, B, Ref      string `json:",omitempty"`
	K, D           int
	Prompts        int                `json:"prompts"`
	TextLines      int                `json:"text_lines,omitempty"`
	MeasuredTokens int                `json:"measured_tokens,omitempty"`
	Overlaps       []XOverlap         `json:"overlaps"`
	Interchange    []XVariant         `json:"interchange,omitempty"`
	BaselineCE     map[string]float64 `json:"baseline_ce,omitempty"`
}

// means returns one row per sequence: the mean of its states.
func means(rows [][][]float32, d int) *mat.Dense {
	m := mat.NewDense(len(rows), d, nil)
	for i, seq := range rows {
		r := m.RawRowView(i)
		for _, x := range seq {
			for j, v := range x {
				r[j] += float64(v)
			}
		}
		for j := range r {
			r[j] /= float64(len(seq))
		}
	}
	return m
}

// stack returns every state of the sequences as rows.
func stack(d int, parts ...[][][]float32) *mat.Dense {
	n := 0
	for _, p := range parts {
		for _, s := range p {
			n += len(s)
		}
	}
	m := mat.NewDense(n, d, nil)
	i := 0
	for _, p := range parts {
		for _, s := range p {
			for _, x := range s {
				r := m.RawRowView(i)
				for j, v := range x {
					r[j] = float64(v)
				}
				i++
			}
		}
	}
	return m
}

// halves splits by index parity: even for fitting the map, odd for
// measuring, so both halves cover every zone and category.
func halves[T any](xs []T) (fit, eval []T) {
	for i, x := range xs {
		if i%2 == 0 {
			fit = append(fit, x)
		} else {
			eval = append(eval, x)
		}
	}
	return fit, eval
}

func runInterchange(ctx context.Context, a, b, ref *xModel, ps, text []string, layers []int, k int, seed uint64, prog func(string, int, int)) (*XReport, error) {
	d := a.m.Dim
	window := min(a.m.CtxLen, b.m.CtxLen, maxPromptWindow)
	pss, err := seqs(ps, window, a, b, ref)
	if err != nil {
		return nil, err
	}
	pFit, pEval := halves(pss)
	if maxK := len(pEval) - 1; k > maxK {
		return nil, base.Usagef("--k %d: the measuring half has %d prompts, so k can be at most %d", k, len(pEval), maxK)
	}
	var tFit, tEval [][]int32
	if len(text) > 0 {
		tFit, err = textWindows(text[:len(text)/2], window, a, b, ref)
		if err != nil {
			return nil, err
		}
		tEval, err = textWindows(text[len(text)/2:], window, a, b, ref)
		if err != nil {
			return nil, err
		}
	}
	rep := &XReport{A: a.path, B: b.path, K: k, D: d, Prompts: len(pss), TextLines: len(text)}
	if ref != nil {
		rep.Ref = ref.path
	}
	all := slices.Concat(pFit, pEval, tFit, tEval)
	total := len(all) * 3
	done := 0
	tapAll := func(x *xModel) (map[int][][][]float32, error) {
		if x == nil {
			return nil, nil
		}
		r, err := tap(ctx, x, all, layers)
		done += len(all)
		prog("states", done, total)
		return r, err
	}
	sa, err := tapAll(a)
	if err != nil {
		return nil, err
	}
	sb, err := tapAll(b)
	if err != nil {
		return nil, err
	}
	sr, err := tapAll(ref)
	if err != nil {
		return nil, err
	}
	nf, ne, ntf := len(pFit), len(pEval), len(tFit)
	part := func(s [][][]float32) (pf, pe, tf, te [][][]float32) {
		return s[:nf], s[nf : nf+ne], s[nf+ne : nf+ne+ntf], s[nf+ne+ntf:]
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	type layerFit struct {
		al   *ugt.Alignment
		ba   *ugt.Basis
		rand *mat.Dense
	}
	fits := make(map[int]layerFit, len(layers))
	for _, l := range layers {
		aPF, aPE, aTF, aTE := part(sa[l])
		bPF, bPE, bTF, bTE := part(sb[l])
		fromFit, toFit := stack(d, bPF, bTF), stack(d, aPF, aTF)
		al, err := ugt.Procrustes(fromFit, toFit)
		if err != nil {
			return nil, fmt.Errorf("eval interchange: block %d: %w", l, err)
		}
		o := XOverlap{Layer: l, FitTokens: fromFit.RawMatrix().Rows, FitResidual: al.Fit, Scale: al.Scale, Chance: ugt.ChanceOverlap(d, k)}
		if o.HeldoutResidual, err = al.Residual(stack(d, bPE, bTE), stack(d, aPE, aTE)); err != nil {
			return nil, err
		}
		ba, err := ugt.Fit(means(aPE, d), k)
		if err != nil {
			return nil, fmt.Errorf("eval interchange: %s block %d: %w", a.path, l, err)
		}
		bb, err := ugt.Fit(means(bPE, d), k)
		if err != nil {
			return nil, fmt.Errorf("eval interchange: %s block %d: %w", b.path, l, err)
		}
		if o.Raw, err = ugt.Overlap(ba.B, bb.B); err != nil {
			return nil, err
		}
		rb, err := al.Rotate(bb.B)
		if err != nil {
			return nil, err
		}
		if o.Aligned, err = ugt.Overlap(ba.B, rb); err != nil {
			return nil, err
		}
		// The null: the same fit on token pairs shuffled out of order.
		shuf := mat.DenseCopyOf(toFit)
		n := shuf.RawMatrix().Rows
		perm := rng.Perm(n)
		src := mat.DenseCopyOf(toFit)
		for i, p := range perm {
			shuf.SetRow(i, src.RawRowView(p))
		}
		alNull, err := ugt.Procrustes(fromFit, shuf)
		if err != nil {
			return nil, err
		}
		rbn, err := alNull.Rotate(bb.B)
		if err != nil {
			return nil, err
		}
		if o.AlignedShuffled, err = ugt.Overlap(ba.B, rbn); err != nil {
			return nil, err
		}
		baFit, err := ugt.Fit(means(aPF, d), k)
		if err != nil {
			return nil, fmt.Errorf("eval interchange: %s block %d (fitting half): %w", a.path, l, err)
		}
		if o.SelfHalves, err = ugt.Overlap(ba.B, baFit.B); err != nil {
			return nil, err
		}
		if ref != nil {
			_, rPE, _, _ := part(sr[l])
			br, err := ugt.Fit(means(rPE, d), k)
			if err != nil {
				return nil, fmt.Errorf("eval interchange: %s block %d: %w", ref.path, l, err)
			}
			v, err := ugt.Overlap(ba.B, br.B)
			if err != nil {
				return nil, err
			}
			o.Ref = &v
		}
		rep.Overlaps = append(rep.Overlaps, o)
		fits[l] = layerFit{al: al, ba: ba, rand: randomBasis(rng, d, k)}
	}
	if len(tEval) == 0 {
		return rep, nil
	}
	_, _, _, aTE := part(sa[layers[0]])
	for _, s := range aTE {
		rep.MeasuredTokens += len(s) - 1
	}
	// The interchange: every variant's next-token distribution beside A's.
	acc := map[string]*xAcc{}
	keys := []string{}
	get := func(l int, name string) *xAcc {
		key := strconv.Itoa(l) + "\x00" + name
		if acc[key] == nil {
			acc[key] = &xAcc{layer: l, name: name}
			keys = append(keys, key)
		}
		return acc[key]
	}
	vocab := a.m.Vocab
	baselines := map[string]*xAcc{"A": {name: "A"}, "B": {name: "B"}}
	if ref != nil {
		baselines["ref"] = &xAcc{name: "ref"}
	}
	for wi, s := range tEval {
		prog("interchange", wi, len(tEval))
		pa, err := logitsOf(a, s, nil, vocab)
		if err != nil {
			return nil, err
		}
		baselines["A"].add(pa, pa, s, vocab)
		pb, err := logitsOf(b, s, nil, vocab)
		if err != nil {
			return nil, err
		}
		baselines["B"].add(pa, pb, s, vocab)
		if ref != nil {
			pr, err := logitsOf(ref, s, nil, vocab)
			if err != nil {
				return nil, err
			}
			baselines["ref"].add(pa, pr, s, vocab)
		}
		for _, l := range layers {
			f := fits[l]
			_, _, _, bTE := part(sb[l])
			hb := bTE[wi]
			mapped := make([][]float64, len(hb))
			unaligned := make([][]float64, len(hb))
			meanA := make([][]float64, len(hb))
			h := make([]float64, d)
			for p, x := range hb {
				for i, v := range x {
					h[i] = float64(v)
				}
				if mapped[p], err = f.al.Map(h, nil); err != nil {
					return nil, err
				}
				u := make([]float64, d)
				for i := range u {
					u[i] = f.al.MuTo[i] + f.al.Scale*(h[i]-f.al.MuFrom[i])
				}
				unaligned[p] = u
				meanA[p] = f.ba.Mu
			}
			variants := []struct {
				name string
				b    *mat.Dense
				y    [][]float64
			}{
				{"swap UGT component, aligned", f.ba.B, mapped},
				{"swap UGT component, unaligned", f.ba.B, unaligned},
				{"UGT component set to the mean", f.ba.B, meanA},
				{"swap random k-subspace, aligned", f.rand, mapped},
				{"whole state from B, aligned", nil, mapped},
				{"whole state from B, unaligned", nil, unaligned},
			}
			if ref != nil {
				_, _, _, rTE := part(sr[l])
				hr := make([][]float64, len(rTE[wi]))
				for p, x := range rTE[wi] {
					hr[p] = make([]float64, d)
					for i, v := range x {
						hr[p][i] = float64(v)
					}
				}
				variants = append(variants, struct {
					name string
					b    *mat.Dense
					y    [][]float64
				}{"swap UGT component from ref", f.ba.B, hr})
			}
			for _, v := range variants {
				hk := &swapHook{layer: l, b: v.b, y: v.y, xs: make([]float64, d)}
				pv, err := logitsOf(a, s, hk, vocab)
				if err != nil {
					return nil, err
				}
				if hk.failed != nil {
					return nil, hk.failed
				}
				get(l, v.name).add(pa, pv, s, vocab)
			}
		}
	}
	prog("interchange", len(tEval), len(tEval))
	rep.BaselineCE = map[string]float64{}
	for n, x := range baselines {
		rep.BaselineCE[n] = x.ce / float64(x.n)
	}
	for _, key := range keys {
		x := acc[key]
		ce := x.ce / float64(x.n)
		rep.Interchange = append(rep.Interchange, XVariant{Layer: x.layer, Name: x.name, CE: ce, PPL: math.Exp(ce),
			KL: x.kl / float64(x.n), Agreement: float64(x.agree) / float64(x.n)})
	}
	return rep, nil
}

// maxPromptWindow caps a calibration prompt or text window, as
// calibration does.
const maxPromptWindow = 256

// textWindows tokenises the lines as one stream (each line after the
// previous, as the engine's plain text) and cuts it into windows of BOS +
// window−1 tokens.
func textWindows(lines []string, window int, ms ...*xModel) ([][]int32, error) {
	joined := strings.Join(lines, " ")
	var first []int32
	for i, x := range ms {
		if x == nil {
			continue
		}
		ids, err := x.tk.Encode(joined, tokenizer.EncodeOptions{})
		if err != nil {
			return nil, fmt.Errorf("eval interchange: %s: %w", x.path, err)
		}
		if i == 0 {
			first = ids
		} else if !slices.Equal(ids, first) {
			return nil, fmt.Errorf("eval interchange: %s and %s tokenise the text differently: the models must share a tokenizer", x.path, ms[0].path)
		}
	}
	bos := ms[0].tk.BOS()
	var out [][]int32
	for i := 0; i < len(first); i += window - 1 {
		w := append([]int32{bos}, first[i:min(i+window-1, len(first))]...)
		if len(w) > 1 {
			out = append(out, w)
		}
	}
	return out, nil
}

// logitsOf returns the logits of every position of s under x, with hook
// (may be nil) registered for the pass.
func logitsOf(x *xModel, s []int32, hook any, vocab int) ([]float32, error) {
	if hook != nil {
		remove, err := x.st.AddHook(hook)
		if err != nil {
			return nil, err
		}
		defer remove()
	}
	x.st.Reset()
	out := make([]float32, len(s)*vocab)
	if err := x.st.Forward(s, out); err != nil {
		return nil, fmt.Errorf("eval interchange: %s: %w", x.path, err)
	}
	return out, nil
}

// xAcc accumulates cross-entropy, KL from A and top-1 agreement.
type xAcc struct {
	layer    int
	name     string
	ce, kl   float64
	agree, n int
}

// add scores positions 0…len(s)−2 of one window: the prediction of the
// next token, by the reference logits pa and the variant's pv.
func (x *xAcc) add(pa, pv []float32, s []int32, vocab int) {
	la := make([]float64, vocab)
	lv := make([]float64, vocab)
	for p := 0; p+1 < len(s); p++ {
		ra, rv := pa[p*vocab:(p+1)*vocab], pv[p*vocab:(p+1)*vocab]
		logSoftmax(ra, la)
		logSoftmax(rv, lv)
		x.ce -= lv[s[p+1]]
		var kl float64
		for i, v := range la {
			kl += math.Exp(v) * (v - lv[i])
		}
		x.kl += kl
		if argmax(ra) == argmax(rv) {
			x.agree++
		}
		x.n++
	}
}

func logSoftmax(z []float32, out []float64) {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = math.Max(mx, float64(v))
	}
	var s float64
	for _, v := range z {
		s += math.Exp(float64(v) - mx)
	}
	ls := mx + math.Log(s)
	for i, v := range z {
		out[i] = float64(v) - ls
	}
}

// randomBasis is a uniformly random d×k orthonormal basis: the control
// for "the UGT subspace in particular".
func randomBasis(rng *rand.Rand, d, k int) *mat.Dense {
	for {
		g := mat.NewDense(d, k, nil)
		for i := 0; i < d; i++ {
			for j := 0; j < k; j++ {
				g.Set(i, j, rng.NormFloat64())
			}
		}
		if q, err := ugt.Orthonormalize(g); err == nil {
			return q
		}
	}
}

func printInterchange(w io.Writer, r *XReport) {
	fmt.Fprintf(w, "A %s\nB %s\n", r.A, r.B)
	if r.Ref != "" {
		fmt.Fprintf(w, "ref %s\n", r.Ref)
	}
	fmt.Fprintf(w, "k = %d, d = %d, %d calibration prompts (half fit the map, half measure)\n\n", r.K, r.D, r.Prompts)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	hdr := "block\traw\taligned\tshuffled-pairs null\tchance k/d\tA half vs half\t"
	if r.Ref != "" {
		hdr += "A vs ref\t"
	}
	fmt.Fprintln(tw, hdr+"map residual fit/held-out\tscale\t")
	for _, o := range r.Overlaps {
		line := fmt.Sprintf("%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t", o.Layer, o.Raw, o.Aligned, o.AlignedShuffled, o.Chance, o.SelfHalves)
		if o.Ref != nil {
			line += fmt.Sprintf("%.4f\t", *o.Ref)
		}
		fmt.Fprintln(tw, line+fmt.Sprintf("%.3f / %.3f\t%.3f\t", o.FitResidual, o.HeldoutResidual, o.Scale))
	}
	tw.Flush()
	if len(r.Interchange) == 0 {
		return
	}
	fmt.Fprintf(w, "\ninterchange on %d held-out tokens (%d text lines, second half): A's head reads the changed state\n", r.MeasuredTokens, r.TextLines)
	for _, n := range []string{"A", "B", "ref"} {
		if ce, ok := r.BaselineCE[n]; ok {
			fmt.Fprintf(w, "  %s alone: ppl %.2f\n", n, math.Exp(ce))
		}
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "block\tvariant\tppl\tKL from A (nats)\ttop-1 = A\t")
	for _, v := range r.Interchange {
		fmt.Fprintf(tw, "%d\t%s\t%.2f\t%.4f\t%.1f %%\t\n", v.Layer, v.Name, v.PPL, v.KL, 100*v.Agreement)
	}
	tw.Flush()
}
