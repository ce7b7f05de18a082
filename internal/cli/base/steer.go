package base

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/steer"
	"github.com/isagi-lab/isagi/session"
)

// SteerFlags are llama.cpp's control-vector flags, with its meanings, so
// that a command line that steers llama-cli or llama-server steers isagi:
//
//	--control-vector F[,F…]           each file at scale 1
//	--control-vector-scaled F:S[,…]   each file at scale S
//	--control-vector-layer-range A B  the layers steered, inclusive (default 1 to the last)
//
// Both may be given several times; the vectors add up. A file may also be
// NAME, for NAME.gguf in the data directory's steer/ (isagi's own).
type SteerFlags struct {
	uses       []session.SteerUse
	start, end int
	rangeGiven bool
}

// Register adds the flags to fs.
func (sf *SteerFlags) Register(fs *flag.FlagSet) {
	fs.Func("control-vector", "add a steering vector (llama.cpp control-vector GGUF, or NAME in the data directory's steer/) at scale 1; comma-separated for several", func(v string) error {
		for _, f := range splitList(v) {
			sf.uses = append(sf.uses, session.SteerUse{Vector: f, Scale: 1})
		}
		return nil
	})
	fs.Func("control-vector-scaled", "add a steering vector at a scale: `FILE:SCALE` (or llama.cpp's older FILE SCALE), comma-separated for several", func(v string) error {
		for _, item := range splitList(v) {
			i := strings.LastIndexAny(item, ": ")
			if i <= 0 {
				return fmt.Errorf("want FILE:SCALE, not %q", item)
			}
			s, err := strconv.ParseFloat(strings.TrimSpace(item[i+1:]), 32)
			if err != nil || math.IsNaN(s) || math.IsInf(s, 0) {
				return fmt.Errorf("%q: the scale is not a number", item)
			}
			sf.uses = append(sf.uses, session.SteerUse{Vector: item[:i], Scale: float32(s)})
		}
		return nil
	})
	fs.Func("control-vector-layer-range", "the layers the steering vectors act on, `START END` inclusive (llama.cpp's two words, or START-END)", func(v string) error {
		f := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' || r == '-' })
		if len(f) != 2 {
			return fmt.Errorf("want START END, not %q", v)
		}
		a, e1 := strconv.Atoi(f[0])
		b, e2 := strconv.Atoi(f[1])
		if e1 != nil || e2 != nil || a < 0 || b < a {
			return fmt.Errorf("want START END with 0 ≤ START ≤ END, not %q", v)
		}
		sf.start, sf.end, sf.rangeGiven = a, b, true
		return nil
	})
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Given reports whether a vector was given.
func (sf *SteerFlags) Given() bool { return len(sf.uses) > 0 }

// Check refuses a layer range without a vector: a mistake in the command
// line.
func (sf *SteerFlags) Check() error {
	if sf.rangeGiven && !sf.Given() {
		return Usagef("--control-vector-layer-range needs --control-vector or --control-vector-scaled")
	}
	return nil
}

// Spec is the flags as the session's steer setting.
func (sf *SteerFlags) Spec() string {
	uses := make([]session.SteerUse, len(sf.uses))
	for i, u := range sf.uses {
		u.Start, u.End = sf.start, sf.end
		uses[i] = u
	}
	return session.FormatSteer(uses)
}

// LoadedVector is one control vector the flags name, read, with its scale.
type LoadedVector struct {
	Name  string // as given: a file, or NAME in the data directory's steer/
	Path  string
	Scale float32
	V     *steer.Vector
}

// Read reads the vectors the flags name (before the model loads, so that
// a missing or broken file is said at once); dir is the data directory's
// steer/ ("" none), where a bare NAME is NAME.gguf.
func (sf *SteerFlags) Read(dir string) ([]LoadedVector, error) {
	out := make([]LoadedVector, 0, len(sf.uses))
	for _, u := range sf.uses {
		path, _ := session.SteerPath(dir, u.Vector)
		if path == "" {
			path = u.Vector // no steering directory: as given
		}
		v, err := steer.Read(path)
		if err != nil {
			return nil, err
		}
		out = append(out, LoadedVector{Name: u.Vector, Path: path, Scale: u.Scale, V: v})
	}
	return out, nil
}

// Range is the layer range the flags give (zero: llama.cpp's default).
func (sf *SteerFlags) Range() steer.Range { return steer.Range{Start: sf.start, End: sf.end} }

// Combine checks vs against m and sums them, scaled, over the flags'
// layer range, as llama.cpp does: what model.State.SetSteering takes.
func (sf *SteerFlags) Combine(vs []LoadedVector, m steer.Model) ([][]float32, error) {
	uses := make([]steer.Use, len(vs))
	for i, lv := range vs {
		if err := lv.V.Check(lv.Name, m); err != nil {
			return nil, err
		}
		uses[i] = steer.Use{V: lv.V, Scale: lv.Scale}
	}
	return steer.Combine(uses, sf.Range(), m)
}

// Apply steers st, a state of m (architecture arch), as the flags say: for
// commands that run the engine without a session. dir is the data
// directory's steer/ ("" none).
func (sf *SteerFlags) Apply(st *model.State, m *model.Model, arch, dir string) error {
	if !sf.Given() {
		return nil
	}
	vs, err := sf.Read(dir)
	if err != nil {
		return err
	}
	dirs, err := sf.Combine(vs, steer.Model{Arch: arch, Dim: m.Dim, Layers: m.Layers})
	if err != nil {
		return err
	}
	return st.SetSteering(dirs)
}

// joinLlamaArgs rewrites llama.cpp's two-word flags, which Go's flag
// package cannot read, into one word each: "--control-vector-scaled F S"
// (llama.cpp's older form) into "--control-vector-scaled=F:S" and
// "--control-vector-layer-range A B" into "--control-vector-layer-range=A
// B". Anything else is left as it is, and so is everything after "--".
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
