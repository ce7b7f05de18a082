package evalcmd

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/steer"
	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/internal/cli/base"
)

// steerFlags are eval refusals' steering flags: the scales of the arms
// steered against the refusal direction, and llama.cpp's control vector
// flags for one more arm.
type steerFlags struct {
	scales  string
	layers  string
	vectors vectorList
	rng     layerRange
}

func (f *steerFlags) register(fs *flag.FlagSet) {
	def := evaluate.DefaultSteerScales()
	ss := make([]string, len(def))
	for i, s := range def {
		ss[i] = strconv.FormatFloat(s, 'f', -1, 64)
	}
	fs.StringVar(&f.scales, "steer-scales", strings.Join(ss, ","), "refusals: steering arms, each `S` of a comma-separated list steering by −S × the refusal direction (from the calibration pairs) on the middle layers and on every layer; \"none\" for no such arm")
	fs.StringVar(&f.layers, "steer-layers", "", "refusals: the blocks the --steer-scales arms steer after, a comma-separated `LIST` of one block (2) or a range (1-3) each (default: the middle third of the blocks, and every block from 1)")
	fs.Var(vectorFlag{&f.vectors, false}, "control-vector", "refusals: measure the control vector `FILE` (llama.cpp's format) as one more arm, at scale 1; repeatable, the vectors summed")
	fs.Var(vectorFlag{&f.vectors, true}, "control-vector-scaled", "refusals: as --control-vector, at a scale: `FILE:S` (or llama.cpp's FILE S)")
	fs.Var(&f.rng, "control-vector-layer-range", "refusals: steer the control vectors after blocks `A B` only, inclusive (or A-B; default 1 to the last)")
}

// given says whether any steering flag differs from its default, for
// the commands other than refusals, which refuse them.
func (f *steerFlags) given(fs *flag.FlagSet) string {
	for _, n := range []string{"steer-scales", "steer-layers", "control-vector", "control-vector-scaled", "control-vector-layer-range"} {
		if base.FlagGiven(fs, n) {
			return n
		}
	}
	return ""
}

// parseScales reads --steer-scales.
func (f *steerFlags) parseScales() ([]float64, error) {
	v := strings.TrimSpace(f.scales)
	if v == "" || v == "none" {
		return nil, nil
	}
	var out []float64
	for _, p := range strings.Split(v, ",") {
		s, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(s) || math.IsInf(s, 0) || s == 0 {
			return nil, base.Usagef("--steer-scales %s: %q is not a scale; want numbers other than 0, comma-separated, or none", f.scales, p)
		}
		out = append(out, s)
	}
	return out, nil
}

// parseLayers reads --steer-layers (nil: the default ranges).
func (f *steerFlags) parseLayers() ([][2]int, error) {
	v := strings.TrimSpace(f.layers)
	if v == "" {
		return nil, nil
	}
	var out [][2]int
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		a, b, isRange := strings.Cut(p, "-")
		if !isRange {
			b = a
		}
		x, err1 := strconv.Atoi(strings.TrimSpace(a))
		y, err2 := strconv.Atoi(strings.TrimSpace(b))
		if err1 != nil || err2 != nil || x < 1 || y < x {
			return nil, base.Usagef("--steer-layers %s: %q is not a block or a range A-B with 1 ≤ A ≤ B", f.layers, p)
		}
		out = append(out, [2]int{x, y})
	}
	return out, nil
}

// read reads the control vector files (before the model loads, so that
// a missing or broken file is said at once).
func (f *steerFlags) read() ([]loadedVector, error) {
	if len(f.vectors) == 0 {
		if f.rng.set {
			return nil, base.Usagef("--control-vector-layer-range needs --control-vector or --control-vector-scaled")
		}
		return nil, nil
	}
	out := make([]loadedVector, len(f.vectors))
	for i, u := range f.vectors {
		v, err := steer.Read(u.path)
		if err != nil {
			return nil, err
		}
		out[i] = loadedVector{path: u.path, scale: u.scale, v: v}
	}
	return out, nil
}

// loadedVector is one control vector file read, with its scale.
type loadedVector struct {
	path  string
	scale float32
	v     *steer.Vector
}

// combine checks the vectors against the model and sums them, scaled,
// over the layer range: the arm's steering and its description.
func (f *steerFlags) combine(vs []loadedVector, m *model.Model) ([][]float32, evaluate.SteerArm, error) {
	sm := steer.Model{Arch: m.Arch, Dim: m.Dim, Layers: m.Layers}
	uses := make([]steer.Use, len(vs))
	var names []string
	for i, lv := range vs {
		if err := lv.v.Check(lv.path, sm); err != nil {
			return nil, evaluate.SteerArm{}, err
		}
		uses[i] = steer.Use{V: lv.v, Scale: lv.scale}
		name := filepath.Base(lv.path)
		if len(vs) > 1 {
			name = strconv.FormatFloat(float64(lv.scale), 'g', -1, 32) + "×" + name
		}
		names = append(names, name)
	}
	dirs, err := steer.Combine(uses, steer.Range{Start: f.rng.a, End: f.rng.b}, sm)
	if err != nil {
		return nil, evaluate.SteerArm{}, err
	}
	arm := evaluate.SteerArm{Vector: strings.Join(names, " + "), Scale: 1, First: -1}
	if len(vs) == 1 {
		arm.Scale = float64(vs[0].scale)
	}
	for l, d := range dirs {
		if d == nil {
			continue
		}
		if arm.First < 0 {
			arm.First = l
		}
		arm.Last = l
	}
	if arm.First < 0 {
		return nil, evaluate.SteerArm{}, fmt.Errorf("the control vectors have no direction for blocks %s of this model (1–%d)", f.rng.String(), m.Layers-1)
	}
	return dirs, arm, nil
}

// vectorUse is one --control-vector or --control-vector-scaled.
type vectorUse struct {
	path  string
	scale float32
}

type vectorList []vectorUse

// vectorFlag adds to a vectorList; scaled reads FILE:S.
type vectorFlag struct {
	l      *vectorList
	scaled bool
}

func (v vectorFlag) String() string {
	if v.l == nil {
		return ""
	}
	var ps []string
	for _, u := range *v.l {
		ps = append(ps, u.path)
	}
	return strings.Join(ps, ",")
}

func (v vectorFlag) Set(s string) error {
	u := vectorUse{path: s, scale: 1}
	if v.scaled {
		i := strings.LastIndexAny(s, ": ")
		if i <= 0 {
			return fmt.Errorf("%q: want FILE:SCALE", s)
		}
		sc, err := strconv.ParseFloat(strings.TrimSpace(s[i+1:]), 32)
		if err != nil || math.IsNaN(sc) || math.IsInf(sc, 0) {
			return fmt.Errorf("%q: the scale %q is not a number", s, s[i+1:])
		}
		u = vectorUse{path: s[:i], scale: float32(sc)}
	}
	if u.path == "" {
		return fmt.Errorf("an empty file name")
	}
	*v.l = append(*v.l, u)
	return nil
}

// layerRange is --control-vector-layer-range: "A B", "A-B" or "A,B".
type layerRange struct {
	a, b int
	set  bool
}

func (r *layerRange) String() string {
	if r == nil || !r.set {
		return ""
	}
	return fmt.Sprintf("%d–%d", r.a, r.b)
}

func (r *layerRange) Set(s string) error {
	f := strings.FieldsFunc(s, func(c rune) bool { return c == ' ' || c == ',' || c == '-' || c == ':' })
	if len(f) != 2 || strings.HasPrefix(strings.TrimSpace(s), "-") {
		return fmt.Errorf("%q: want two blocks, A B", s)
	}
	a, err1 := strconv.Atoi(f[0])
	b, err2 := strconv.Atoi(f[1])
	switch {
	case err1 != nil || err2 != nil:
		return fmt.Errorf("%q: want two block numbers, A B", s)
	case a < 1 || b < a:
		return fmt.Errorf("%q: want 1 ≤ A ≤ B (llama.cpp never steers after block 0)", s)
	}
	r.a, r.b, r.set = a, b, true
	return nil
}

// joinLlamaArgs rewrites llama.cpp's two-word flags, which Go's flag
// package cannot read, into one word each: "--control-vector-scaled F S"
// into "--control-vector-scaled=F:S" and "--control-vector-layer-range A
// B" into "--control-vector-layer-range=A B". Anything else is left as
// it is, and so is everything after "--".
func joinLlamaArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || strings.Contains(name, "=") || i+2 >= len(args) {
			out = append(out, a)
			continue
		}
		x, y := args[i+1], args[i+2]
		switch name {
		case "control-vector-scaled":
			if _, err := strconv.ParseFloat(y, 64); err == nil && !strings.HasPrefix(x, "-") && !hasScale(x) {
				out = append(out, "--"+name+"="+x+":"+y)
				i += 2
				continue
			}
		case "control-vector-layer-range":
			_, e1 := strconv.Atoi(x)
			_, e2 := strconv.Atoi(y)
			if e1 == nil && e2 == nil {
				out = append(out, "--"+name+"="+x+" "+y)
				i += 2
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// hasScale says whether s already ends in ":SCALE".
func hasScale(s string) bool {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return false
	}
	_, err := strconv.ParseFloat(s[i+1:], 64)
	return err == nil
}
