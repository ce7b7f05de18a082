// Package steercmd is `isagi steer`: control vectors in llama.cpp's
// format (engine/steer), made from a model's states (make) and shown
// (show).
package steercmd

import (
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/steer"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/prompts"
)

// Subcommands are steer's subcommands, in the order the help lists them:
// what Main dispatches to and what the top-level help lists.
func Subcommands() []base.Command {
	return []base.Command{
		{Name: "make", Args: "--model M.gguf --pairs F --out V.gguf", Summary: "a control vector from contrast pairs (or --category C, --refusal)", Main: cmdMake},
		{Name: "show", Args: "V.gguf [--model M.gguf]", Summary: "a control vector's layers and norms; --model: does it fit", Main: cmdShow},
	}
}

// Main is `isagi steer make …` and `isagi steer show …`.
func Main(env base.Env, args []string) error {
	if len(args) > 0 && base.IsHelp(args[0]) {
		fmt.Fprint(env.Stderr, steerUsage)
		return flag.ErrHelp
	}
	if len(args) > 0 {
		if c, ok := base.Lookup(Subcommands(), args[0]); ok {
			return c.Main(env, args[1:])
		}
	}
	return base.SubcommandError("steer", Subcommands(), args)
}

// Sources and methods of make.
const (
	methodCategory = "category" // the profile's probe direction
	methodRefusal  = "refusal"  // the refusal-direction paper's difference in means
)

// request is make's command line, checked: where the pairs come from and
// how they become directions.
type request struct {
	pairsFile, posFile, negFile string
	category                    string
	refusal, fromProfile        bool
	opt                         geometry.SteerOptions
}

// parseMake checks make's flags against each other: exactly one source,
// and a method and --raw that go with it.
func parseMake(fs *flag.FlagSet, pairs, pos, neg, category, method string, refusal, raw bool) (request, error) {
	r := request{pairsFile: pairs, posFile: pos, negFile: neg, category: category, refusal: refusal}
	n := 0
	for _, given := range []bool{pairs != "", pos != "" || neg != "", category != "", refusal} {
		if given {
			n++
		}
	}
	if n != 1 {
		return r, base.ArgsError(fs, "steer make needs exactly one source: --pairs FILE, --positive P --negative N, --category NAME or --refusal")
	}
	if (pos == "") != (neg == "") {
		return r, base.ArgsError(fs, "--positive and --negative go together: one prompt a line in each, paired by line")
	}
	methodGiven := base.FlagGiven(fs, "method")
	profileGiven := base.FlagGiven(fs, "profile")
	switch method {
	case geometry.SteerMean, geometry.SteerPCA:
	case methodCategory:
		if category == "" {
			return r, base.ArgsError(fs, "--method category reads a profile's probe direction: give --category NAME")
		}
	default:
		return r, base.ArgsError(fs, "--method %q: want mean, pca or category", method)
	}
	// --category with a profile named and no method is the profile's
	// direction; with a method of pairs, its prompts.
	r.fromProfile = category != "" && (method == methodCategory || profileGiven && !methodGiven)
	if profileGiven && !r.fromProfile {
		return r, base.ArgsError(fs, "--profile is read only for a category's probe direction (--category NAME --method category)")
	}
	switch {
	case refusal && method != geometry.SteerMean:
		return r, base.ArgsError(fs, "the refusal direction is a difference in means; --method %s does not apply", method)
	case r.fromProfile && base.FlagGiven(fs, "raw"):
		return r, base.ArgsError(fs, "--raw does not apply to a profile's probe direction, which is stored of unit length")
	case raw && method == geometry.SteerPCA:
		return r, base.ArgsError(fs, "--raw keeps the mean method's difference; a principal component has no magnitude of its own")
	}
	r.opt = geometry.SteerOptions{Method: method, Raw: raw}
	if refusal && !base.FlagGiven(fs, "raw") {
		r.opt.Raw = true // one mean difference: the refusal direction's own unit
	}
	if category != "" && !contains(prompts.CategoryNames(), category) {
		return r, base.ArgsError(fs, "--category %q: want one of %s", category, strings.Join(prompts.CategoryNames(), ", "))
	}
	return r, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// layerNorm is one direction of a vector, for the reports.
type layerNorm struct {
	Layer int     `json:"layer"`
	Norm  float64 `json:"norm"`
}

// norms are v's directions' lengths, by layer.
func norms(v *steer.Vector) []layerNorm {
	var out []layerNorm
	for n, d := range v.Dirs {
		if d == nil {
			continue
		}
		var s float64
		for _, x := range d {
			s += float64(x) * float64(x)
		}
		out = append(out, layerNorm{n, math.Sqrt(s)})
	}
	return out
}

// makeSummary is make's --json report.
type makeSummary struct {
	Out     string      `json:"out"`
	Hint    string      `json:"hint"`
	Dim     int         `json:"dim"`
	Method  string      `json:"method"`
	Source  string      `json:"source"`
	Raw     bool        `json:"raw"`
	Pairs   int         `json:"pairs"`
	Layers  []layerNorm `json:"layers"`
	Seconds float64     `json:"seconds"`
}

// cmdMake is `isagi steer make`.
func cmdMake(env base.Env, args []string) error {
	fs := env.FlagSet("steer make", makeHead, makeTail)
	var g base.GeoFlags
	g.Version = env.Version
	g.Register(fs)
	defer g.Dev.Close()
	out := fs.String("out", "", "the control vector file to write (GGUF, llama.cpp's --control-vector format)")
	pairsFile := fs.String("pairs", "", `contrast pairs, one JSON object a line: {"positive": "...", "negative": "..."}`)
	pos := fs.String("positive", "", "positive prompts, one a line (with --negative, paired by line, as llama-cvector-generator takes them)")
	neg := fs.String("negative", "", "negative prompts, one a line (with --positive)")
	category := fs.String("category", "", "a behaviour category of the shipped prompts ("+strings.Join(prompts.CategoryNames(), ", ")+"): its calibration pairs, harmful positive; with --method category, the profile's probe direction")
	refusal := fs.Bool("refusal", false, "the refusal direction: harmful minus harmless held-out prompts of every category (difference in means, --raw by default)")
	method := fs.String("method", geometry.SteerMean, "mean (the mean difference, unit length unless --raw), pca (the first principal component of the differences) or category (the profile's probe direction of --category)")
	raw := fs.Bool("raw", false, "keep the mean difference's magnitude instead of unit length (the default for --refusal)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return base.ArgsError(fs, "steer make takes no arguments, got %q", fs.Arg(0))
	}
	if *out == "" {
		return base.ArgsError(fs, "steer make needs --out V.gguf, the file to write")
	}
	req, err := parseMake(fs, *pairsFile, *pos, *neg, *category, *method, *refusal, *raw)
	if err != nil {
		return err
	}
	// The pairs before the model, so that a bad file fails at once.
	var pairs []geometry.SteerPair
	var source string
	switch {
	case req.pairsFile != "":
		if pairs, err = readJSONL(req.pairsFile); err != nil {
			return err
		}
		source = filepath.Base(req.pairsFile)
	case req.posFile != "":
		if pairs, err = readPromptFiles(req.posFile, req.negFile); err != nil {
			return err
		}
		source = filepath.Base(req.posFile) + " vs " + filepath.Base(req.negFile)
	case req.category != "" && !req.fromProfile:
		set, err := prompts.Default()
		if err != nil {
			return err
		}
		if pairs, err = geometry.CategoryPairs(set, req.category); err != nil {
			return err
		}
		source = fmt.Sprintf("category %s (its %d calibration pairs, harmful positive)", req.category, len(pairs))
	case req.refusal:
		set, err := prompts.Default()
		if err != nil {
			return err
		}
		pairs = geometry.RefusalPairs(set)
		source = fmt.Sprintf("refusal direction (%d held-out pairs of every category, harmful positive)", len(pairs))
	}
	s, err := g.Open()
	if err != nil {
		return err
	}
	defer s.Close()
	src := s.Geometry().CalibrationSource()
	m := steer.Model{Arch: src.Model.Arch, Dim: src.Model.Dim, Layers: src.Model.Layers}
	start := time.Now()
	var v *steer.Vector
	if req.fromProfile {
		p, err := g.LoadProfile(s)
		if err != nil {
			return err
		}
		if v, err = p.CategoryVector(req.category, m.Arch, m.Layers); err != nil {
			return err
		}
	} else {
		ctx, stop := base.Interruptible()
		defer stop()
		v, err = geometry.Steer(ctx, src, pairs, req.opt, base.ProgressLine(env.Stderr))
		fmt.Fprintln(env.Stderr)
		if err != nil {
			return err
		}
		v.Source = source
		if req.refusal {
			v.Method = methodRefusal
		}
	}
	// Made on this model, it fits it; checked all the same, so that a
	// vector the engine would refuse is never written.
	if err := v.Check(*out, m); err != nil {
		return err
	}
	if err := v.Write(*out); err != nil {
		return err
	}
	sum := makeSummary{Out: *out, Hint: v.Hint, Dim: v.Dim, Method: v.Method, Source: v.Source, Raw: req.opt.Raw && !req.fromProfile,
		Pairs: len(pairs), Layers: norms(v), Seconds: time.Since(start).Seconds()}
	if *asJSON {
		return base.PrintJSON(env.Stdout, sum)
	}
	fmt.Fprintf(env.Stdout, "wrote %s: %s\n", *out, describe(v))
	if sum.Pairs > 0 {
		fmt.Fprintf(env.Stdout, "%d pairs read in %.1f s\n", sum.Pairs, sum.Seconds)
	}
	return nil
}

// describe is a vector in one line: what it steers and how it was made.
func describe(v *steer.Vector) string {
	ls := norms(v)
	span := fmt.Sprintf("direction.%d", ls[0].Layer)
	if len(ls) > 1 {
		span = fmt.Sprintf("direction.%d–%d", ls[0].Layer, ls[len(ls)-1].Layer)
	}
	hint := v.Hint
	if hint == "" {
		hint = "any model"
	}
	line := fmt.Sprintf("%d directions (%s) of width %d for %s", len(ls), span, v.Dim, hint)
	if v.Method != "" {
		line += ", method " + v.Method
	}
	if v.Source != "" {
		line += ", from " + v.Source
	}
	return line
}

// showReport is show's --json report.
type showReport struct {
	File   string      `json:"file"`
	Hint   string      `json:"hint"`
	Dim    int         `json:"dim"`
	Method string      `json:"method,omitempty"`
	Source string      `json:"source,omitempty"`
	Layers []layerNorm `json:"layers"`
	// Fits is whether the vector fits --model (absent without it).
	Fits *bool `json:"fits,omitempty"`
}

// cmdShow is `isagi steer show V.gguf [--model M.gguf]`.
func cmdShow(env base.Env, args []string) error {
	fs := env.FlagSet("steer show", showHead, "")
	var mf base.ModelFlags
	mf.Version = env.Version
	mf.RegisterSource(fs)
	asJSON := fs.Bool("json", false, "print one JSON object")
	files, err := parseAround(env, fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return base.ArgsError(fs, "steer show needs one control vector file, got %d", len(files))
	}
	v, err := steer.Read(files[0])
	if err != nil {
		return err
	}
	rep := showReport{File: files[0], Hint: v.Hint, Dim: v.Dim, Method: v.Method, Source: v.Source, Layers: norms(v)}
	var fit error
	var m steer.Model
	if mf.Model != "" || mf.Demo {
		if m, err = modelShape(&mf); err != nil {
			return err
		}
		fit = v.Check(files[0], m)
		ok := fit == nil
		rep.Fits = &ok
	}
	if *asJSON {
		if err := base.PrintJSON(env.Stdout, rep); err != nil {
			return err
		}
		return fit
	}
	printVector(env.Stdout, rep)
	if rep.Fits != nil && fit == nil {
		fmt.Fprintf(env.Stdout, "fits %s (%s, width %d, %d layers)\n", mf.Label(), m.Arch, m.Dim, m.Layers)
	}
	return fit
}

// printVector is show's table.
func printVector(w io.Writer, rep showReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	none := func(s string) string {
		if s == "" {
			return "—"
		}
		return s
	}
	fmt.Fprintf(tw, "file\t%s\n", rep.File)
	fmt.Fprintf(tw, "hint\t%s\n", none(rep.Hint))
	fmt.Fprintf(tw, "width\t%d\n", rep.Dim)
	fmt.Fprintf(tw, "method\t%s\n", none(rep.Method))
	fmt.Fprintf(tw, "source\t%s\n", none(rep.Source))
	fmt.Fprintf(tw, "directions\t%d\n", len(rep.Layers))
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "layer\tnorm\t")
	for _, l := range rep.Layers {
		fmt.Fprintf(tw, "%d\t%.4f\t\n", l.Layer, l.Norm)
	}
	tw.Flush()
}

// modelShape is what a vector is checked against, read from the model
// file's metadata and tensors without running it.
func modelShape(mf *base.ModelFlags) (steer.Model, error) {
	f, _, err := mf.OpenFile()
	if err != nil {
		return steer.Model{}, err
	}
	m, err := model.Load(f)
	if err != nil {
		f.Close()
		return steer.Model{}, err
	}
	defer m.Close()
	return steer.Model{Arch: m.Arch, Dim: m.Dim, Layers: m.Layers}, nil
}

// parseAround parses flags that may come before and after the file
// arguments ("show V.gguf --model M"), as session's subcommands do.
func parseAround(env base.Env, fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for rest := args; ; {
		if err := env.Parse(fs, rest); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return files, nil
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
}

// steerUsage is the help of `isagi steer`.
const steerUsage = `Usage: isagi steer make [--model FILE | --demo] --out V.gguf (--pairs F | --positive P --negative N | --category C | --refusal) [flags]
       isagi steer show V.gguf [--model FILE | --demo] [--json]

Control vectors in llama.cpp's format (a GGUF file of direction.N
tensors): what llama-cli's --control-vector and isagi's steering read.

  make   a vector from a model's states on contrast pairs
  show   a vector's hint, width, layers and norms; with --model, whether
         it fits that model

Run "isagi steer make --help" for make's flags.
`

// makeHead and makeTail frame `isagi steer make --help`.
const (
	makeHead = `Usage: isagi steer make [--model FILE | --demo] --out V.gguf SOURCE [flags]

Makes a control vector in llama.cpp's format from the model's residual
stream. SOURCE is one of
  --pairs F                 contrast pairs, one JSON object a line:
                            {"positive": "...", "negative": "..."}
  --positive P --negative N one prompt a line in each, paired by line, as
                            llama-cvector-generator takes them
  --category C              the category's calibration pairs from the
                            shipped prompts, harmful positive; with
                            --method category (or --profile given), the
                            profile's probe direction as a one-layer vector
  --refusal                 the refusal direction: harmful minus harmless
                            held-out prompts of every category

Each prompt is read as a user turn (the chat template with its generation
prompt; plain text for a base model) at its last token, where a chat model
decides how to answer, after every block in one pass. As in
llama-cvector-generator and repeng, direction.N comes from block N−1's
output and llama.cpp adds it after block N. Lines written for
llama-cvector-generator with a template of their own ([INST] … [/INST])
should lose it here: the model's template is applied.

Flags:
`
	makeTail = `
Examples:
  isagi steer make --model m.gguf --pairs happy.jsonl --out happy.gguf
  isagi steer make --model m.gguf --positive pos.txt --negative neg.txt --method pca --out v.gguf
  isagi steer make --model m.gguf --refusal --out refusal.gguf
  isagi steer show refusal.gguf --model m.gguf
`
	showHead = `Usage: isagi steer show V.gguf [--model FILE | --demo] [--json]

Shows a control vector: the architecture it was made for (its hint), its
width, each layer with a direction and that direction's norm, and how it
was made. With --model (or --demo), checks that it fits the model: its
width, its layers and its architecture.

Flags:
`
)
