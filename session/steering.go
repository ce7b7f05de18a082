package session

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/isagi-lab/isagi/engine/steer"
)

// Steering is the steering part of a Session: control vectors (llama.cpp's
// format, engine/steer) added to the residual stream after each block, as
// the "steer" setting lists them. A vector is named by a path to its file,
// by NAME for NAME.gguf in the steering directory (Options.SteerDir), or
// by a category of the geometry profile running (its harm direction, unit
// length, added after the block following the probe layer).
//
// Changing the steering recomputes the conversation at the next turn: the
// cached positions were computed with the old one, and a reply must not
// depend on what steered the turns before it.
type Steering struct {
	s     *Session
	dir   string
	cache *vectorCache
	spec  string      // the spec in use ("" none)
	dirs  [][]float32 // what the state adds, per layer (nil none)
	uses  []SteerUse  // the spec, parsed
}

// vectorCache keeps the vector files read, by path and modification time,
// shared by a session's forks (a server's conversations), which read it
// concurrently.
type vectorCache struct {
	mu    sync.Mutex
	files map[string]cachedVector
}

type cachedVector struct {
	mod int64
	v   *steer.Vector
}

// SteerUse is one vector of the steering: its name, scale and layers.
type SteerUse struct {
	Vector string  `json:"vector"`
	Scale  float32 `json:"scale"`
	// Start and End are the layers steered, inclusive, as llama.cpp's
	// --control-vector-layer-range (0: its defaults, 1 and the last).
	Start int `json:"start,omitempty"`
	End   int `json:"end,omitempty"`
}

// String is u as the "steer" setting writes it: NAME[:SCALE][@A-B].
func (u SteerUse) String() string {
	s := u.Vector
	if u.Scale != 1 {
		s += ":" + strconv.FormatFloat(float64(u.Scale), 'g', -1, 32)
	}
	if u.Start > 0 || u.End > 0 {
		s += "@" + strconv.Itoa(u.Start) + "-" + strconv.Itoa(u.End)
	}
	return s
}

// ParseSteer reads the "steer" setting: "off" or "", or vectors separated
// by commas, each NAME[:SCALE][@A-B] (scale 1 and llama.cpp's default
// layers when left out), e.g. "refusal:-0.8@1-3,calm:0.5".
func ParseSteer(spec string) ([]SteerUse, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "off" {
		return nil, nil
	}
	var out []SteerUse
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		u := SteerUse{Scale: 1}
		if i := strings.LastIndexByte(part, '@'); i >= 0 {
			a, b, ok := strings.Cut(part[i+1:], "-")
			start, e1 := strconv.Atoi(strings.TrimSpace(a))
			end, e2 := strconv.Atoi(strings.TrimSpace(b))
			if !ok || e1 != nil || e2 != nil || start < 0 || end < start {
				return nil, fmt.Errorf("%q: layers are A-B, 0 ≤ A ≤ B", part)
			}
			u.Start, u.End = start, end
			part = part[:i]
		}
		if i := strings.LastIndexByte(part, ':'); i >= 0 {
			f, err := strconv.ParseFloat(strings.TrimSpace(part[i+1:]), 32)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%q: the scale is not a number", part)
			}
			u.Scale = float32(f)
			part = part[:i]
		}
		u.Vector = strings.TrimSpace(part)
		if u.Vector == "" {
			return nil, fmt.Errorf("%q: no vector named", spec)
		}
		out = append(out, u)
	}
	return out, nil
}

// FormatSteer is the "steer" setting for uses ("" for none).
func FormatSteer(uses []SteerUse) string {
	parts := make([]string, len(uses))
	for i, u := range uses {
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}

// newSteering is the steering part of s; dir is where vectors are found by
// name ("": only paths and profile categories).
func newSteering(s *Session, dir string) *Steering {
	return &Steering{s: s, dir: dir, cache: &vectorCache{files: map[string]cachedVector{}}}
}

// fork is the steering part of f, a fork of this part's session: the
// same directory and the vectors read so far. The fork's settings steer it
// (apply).
func (sp *Steering) fork(f *Session) *Steering {
	return &Steering{s: f, dir: sp.dir, cache: sp.cache}
}

// Uses is the steering in use, parsed.
func (sp *Steering) Uses() []SteerUse { return slices.Clone(sp.uses) }

// On reports whether a vector steers the model.
func (sp *Steering) On() bool { return sp.dirs != nil }

// Names lists the vectors in the steering directory, by name.
func (sp *Steering) Names() []string {
	if sp.dir == "" {
		return nil
	}
	es, err := os.ReadDir(sp.dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if n, ok := strings.CutSuffix(e.Name(), ".gguf"); ok && !e.IsDir() {
			out = append(out, n)
		}
	}
	return out
}

// use installs the steering n.Steer names, unless it is the one in use.
func (sp *Steering) use(n Settings) error {
	if n.Steer == sp.spec {
		return nil
	}
	dirs, uses, err := sp.resolve(n.Steer)
	if err != nil {
		return err
	}
	if err := sp.s.st.SetSteering(dirs); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	sp.spec, sp.dirs, sp.uses = n.Steer, dirs, uses
	// The cached positions were computed with the old steering: the next
	// turn reads the conversation again.
	if g := sp.s.gen; g != nil {
		g.Reset(sp.s.seed)
	} else {
		sp.s.st.Reset()
	}
	return nil
}

// attach gives the conversation's state (a new one: a resize) the
// steering in use.
func (sp *Steering) attach() error {
	if sp.dirs == nil {
		return nil
	}
	if err := sp.s.st.SetSteering(sp.dirs); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}

// Check says, in one sentence, why spec (the steer setting's form) cannot
// steer this model, without installing it.
func (sp *Steering) Check(spec string) error {
	_, _, err := sp.resolve(spec)
	return err
}

// resolve reads spec's vectors and sums them, each scaled on its layers.
func (sp *Steering) resolve(spec string) ([][]float32, []SteerUse, error) {
	uses, err := ParseSteer(spec)
	if err != nil || len(uses) == 0 {
		return nil, nil, err
	}
	m := sp.model()
	var sum [][]float32
	for _, u := range uses {
		v, err := sp.vector(u.Vector, m)
		if err != nil {
			return nil, nil, err
		}
		d, err := steer.Combine([]steer.Use{{V: v, Scale: u.Scale}}, steer.Range{Start: u.Start, End: u.End}, m)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", u.Vector, err)
		}
		sum = addDirs(sum, d)
	}
	return sum, uses, nil
}

// addDirs is a + b, layer by layer (either may be nil).
func addDirs(a, b [][]float32) [][]float32 {
	if a == nil {
		return b
	}
	for l, d := range b {
		switch {
		case d == nil:
		case a[l] == nil:
			a[l] = d
		default:
			for j := range d {
				a[l][j] += d[j]
			}
		}
	}
	return a
}

// model is the session's model as a vector is checked against.
func (sp *Steering) model() steer.Model {
	s := sp.s
	return steer.Model{Arch: s.info.Arch, Dim: s.m.Dim, Layers: s.m.Layers}
}

// vector finds name: a file, a vector of the steering directory, or a
// category of the profile running.
func (sp *Steering) vector(name string, m steer.Model) (*steer.Vector, error) {
	path := ""
	if p, named := SteerPath(sp.dir, name); !named || (p != "" && fileExists(p)) {
		path = p
	}
	if path == "" {
		if v := sp.category(name); v != nil {
			return v, nil
		}
		where := "no file"
		if sp.dir != "" {
			where = "no " + filepath.Join(sp.dir, name+".gguf")
		}
		if p := sp.s.gm.Profile(); p != nil {
			return nil, fmt.Errorf("steering vector %q: %s, and the profile has no such category", name, where)
		}
		return nil, fmt.Errorf("steering vector %q: %s (and no geometry profile for a category)", name, where)
	}
	v, err := sp.cache.read(path)
	if err != nil {
		return nil, err
	}
	if err := v.Check(filepath.Base(path), m); err != nil {
		return nil, err
	}
	return v, nil
}

// category is the harm direction of the running profile's category name
// as a vector: read at the probe layer's output, so added after the block
// after it (the convention of engine/steer), or after the probe layer
// itself when it is the last block.
func (sp *Steering) category(name string) *steer.Vector {
	p := sp.s.gm.Profile()
	if p == nil {
		return nil
	}
	for _, c := range p.Categories {
		if c.Name != name || len(c.Direction) != p.D {
			continue
		}
		n := min(p.Layer+1, sp.s.m.Layers-1)
		if n < 1 {
			return nil
		}
		d := make([]float32, p.D)
		for j, x := range c.Direction {
			d[j] = float32(x)
		}
		dirs := make([][]float32, n+1)
		dirs[n] = d
		return &steer.Vector{Hint: sp.s.info.Arch, Dim: p.D, Dirs: dirs, Method: "category", Source: name}
	}
	return nil
}

// SteerPath is where the steering vector name is: name itself when it is a
// path (it has a separator or ends in .gguf), else NAME.gguf in dir ("" when
// there is no directory); named says it is not a path.
func SteerPath(dir, name string) (path string, named bool) {
	switch {
	case strings.ContainsRune(name, os.PathSeparator) || strings.HasSuffix(name, ".gguf"):
		return name, false
	case dir == "":
		return "", true
	}
	return filepath.Join(dir, name+".gguf"), true
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// read is the vector at path, read again when the file changed.
func (c *vectorCache) read(path string) (*steer.Vector, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("steering vector: %w", err)
	}
	mod := fi.ModTime().UnixNano()
	c.mu.Lock()
	e, ok := c.files[path]
	c.mu.Unlock()
	if ok && e.mod == mod {
		return e.v, nil
	}
	v, err := steer.Read(path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.files[path] = cachedVector{mod: mod, v: v}
	c.mu.Unlock()
	return v, nil
}
