package base

import (
	"flag"
	"fmt"
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
	fs.Func("control-vector-scaled", "add a steering vector at a scale: `FILE:SCALE`, comma-separated for several", func(v string) error {
		for _, item := range splitList(v) {
			i := strings.LastIndexByte(item, ':')
			if i <= 0 {
				return fmt.Errorf("want FILE:SCALE, not %q", item)
			}
			s, err := strconv.ParseFloat(item[i+1:], 32)
			if err != nil {
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

// Apply steers st, a state of m (architecture arch), as the flags say: for
// commands that run the engine without a session. dir is the data
// directory's steer/ ("" none).
func (sf *SteerFlags) Apply(st *model.State, m *model.Model, arch, dir string) error {
	if !sf.Given() {
		return nil
	}
	sm := steer.Model{Arch: arch, Dim: m.Dim, Layers: m.Layers}
	var uses []steer.Use
	for _, u := range sf.uses {
		path := u.Vector
		if dir != "" && !strings.ContainsRune(path, '/') && !strings.HasSuffix(path, ".gguf") {
			path = dir + "/" + path + ".gguf"
		}
		v, err := steer.Read(path)
		if err != nil {
			return err
		}
		if err := v.Check(u.Vector, sm); err != nil {
			return err
		}
		uses = append(uses, steer.Use{V: v, Scale: u.Scale})
	}
	dirs, err := steer.Combine(uses, steer.Range{Start: sf.start, End: sf.end}, sm)
	if err != nil {
		return err
	}
	return st.SetSteering(dirs)
}

// joinLayerRange rewrites llama.cpp's two-word --control-vector-layer-range
// A B as one flag value, so that Go's flag package, whose flags take one
// word, reads the same command line llama.cpp does.
func joinLayerRange(args []string) []string {
	out := args
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if a != "--control-vector-layer-range" && a != "-control-vector-layer-range" {
			continue
		}
		if i+2 < len(out) && isInt(out[i+1]) && isInt(out[i+2]) {
			joined := make([]string, 0, len(out)-1)
			joined = append(joined, out[:i]...)
			joined = append(joined, a+"="+out[i+1]+" "+out[i+2])
			out = append(joined, out[i+3:]...)
		}
	}
	return out
}

func isInt(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
