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
	scales string
	layers string
	cv     base.SteerFlags // llama.cpp's control-vector flags
}

func (f *steerFlags) register(fs *flag.FlagSet) {
	def := evaluate.DefaultSteerScales()
	ss := make([]string, len(def))
	for i, s := range def {
		ss[i] = strconv.FormatFloat(s, 'f', -1, 64)
	}
	fs.StringVar(&f.scales, "steer-scales", strings.Join(ss, ","), "refusals: steering arms, each `S` of a comma-separated list steering by −S × the refusal direction (from the calibration pairs) on the middle layers and on every layer; \"none\" for no such arm")
	fs.StringVar(&f.layers, "steer-layers", "", "refusals: the blocks the --steer-scales arms steer after, a comma-separated `LIST` of one block (2) or a range (1-3) each (default: the middle third of the blocks, and every block from 1)")
	// refusals: the control vectors, summed, are measured as one more arm.
	f.cv.Register(fs)
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
func (f *steerFlags) read(dir string) ([]base.LoadedVector, error) {
	if err := f.cv.Check(); err != nil {
		return nil, err
	}
	if !f.cv.Given() {
		return nil, nil
	}
	return f.cv.Read(dir)
}

// combine checks the vectors against the model and sums them, scaled,
// over the layer range: the arm's steering and its description.
func (f *steerFlags) combine(vs []base.LoadedVector, m *model.Model) ([][]float32, evaluate.SteerArm, error) {
	dirs, err := f.cv.Combine(vs, steer.Model{Arch: m.Arch, Dim: m.Dim, Layers: m.Layers})
	if err != nil {
		return nil, evaluate.SteerArm{}, err
	}
	var names []string
	for _, lv := range vs {
		name := filepath.Base(lv.Path)
		if len(vs) > 1 {
			name = strconv.FormatFloat(float64(lv.Scale), 'g', -1, 32) + "×" + name
		}
		names = append(names, name)
	}
	arm := evaluate.SteerArm{Vector: strings.Join(names, " + "), Scale: 1, First: -1}
	if len(vs) == 1 {
		arm.Scale = float64(vs[0].Scale)
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
		r := f.cv.Range()
		return nil, evaluate.SteerArm{}, fmt.Errorf("the control vectors have no direction for blocks %d–%d of this model (1–%d)", r.Start, r.End, m.Layers-1)
	}
	return dirs, arm, nil
}
