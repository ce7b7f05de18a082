// Package geometry is where the geometry stack (ugt, teh, snipe) meets the
// engine: it collects hidden states from a model through the engine's
// hooks, builds and stores a model's geometry profile (its UGT basis,
// forbidden coordinates, harm thresholds and Snipe projectors,
// docs/mechanisms.md §5–7), and runs the profile live in the forward pass — a
// TEH gauge read per token and Snipe projectors that remove a category's
// coordinates from the residual stream.
//
// The math lives in the ugt, teh and snipe packages, which know nothing of
// models; this package owns the parts that need one.
package geometry

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/teh"
)

// ProfileFormat versions a profile's contents. A profile written by a newer
// format is refused with both numbers; an older one is rebuilt by
// calibrating again.
const ProfileFormat = 1

// maxWidth bounds a profile's d: wider than any model's residual stream.
const maxWidth = 1 << 17

// MaxCategories bounds the behaviour categories one profile holds, so that
// a per-token Reading is a fixed-size value (no allocation per token).
const MaxCategories = 16

// ErrOtherModel is returned when a profile was built for another model.
var ErrOtherModel = errors.New("geometry profile was built for another model")

// Profile is a model's geometry profile: everything calibration learned
// about its residual stream. It is tied to one model file by sha256.
type Profile struct {
	Format  int           `json:"format"`
	Model   miku.ModelRef `json:"-"` // kept in the file header
	Created time.Time     `json:"-"`
	// Layer is the probe layer: the block whose output (the residual stream
	// before the next block, or before the final norm for the last one) the
	// states are read from.
	Layer int `json:"layer"`
	// SnipeLayer ℓ_s: projectors act on the output of this block and every
	// later one.
	SnipeLayer int `json:"snipe_layer"`
	// GaugePosition is where in a prompt the TEH gauges were calibrated,
	// and so where a turn's prompt figure is read: GaugeMean (the mean
	// over the prompt's tokens; "" in profiles made before the choice
	// existed) or GaugeLast (the prompt's last token, where a chat model
	// decides how to answer). The basis, μ and the Snipe projectors are
	// from mean states either way.
	GaugePosition string `json:"gauge_position,omitempty"`
	D             int    `json:"d"`
	K             int    `json:"k"`
	// Mu is the mean calibration state (d) and B the basis (d×k, column j
	// is UGT coordinate j), both from package ugt.
	Mu       []float64  `json:"-"`
	B        *mat.Dense `json:"-"`
	Singular []float64  `json:"singular"`
	// Refined says whether the basis was refined on the Stiefel manifold,
	// with the zone-separation objective before and after.
	Refined      bool    `json:"refined,omitempty"`
	RefineBefore float64 `json:"refine_before,omitempty"`
	RefineAfter  float64 `json:"refine_after,omitempty"`

	Zones      []Zone     `json:"zones"`
	Categories []Category `json:"categories"`
	// Overall is the gauge over every category's forbidden coordinates.
	Overall Gauge `json:"overall"`

	// COG is the calibrated memory gate: when the living manifold may
	// serve a stored answer (docs/geometry.md). Nil in profiles made
	// before it was calibrated; they still load, and serve only
	// word-for-word repeats (COGGate.Gate).
	COG *COGGate `json:"cog,omitempty"`

	Stats Stats `json:"stats"`
}

// Zone is one UGT zone's centroid in basis coordinates.
type Zone struct {
	Name     string    `json:"name"`
	Prompts  int       `json:"prompts"`
	Centroid []float64 `json:"centroid"`
}

// Gauge is a TEH gauge: its forbidden coordinates and the threshold ROC
// calibration chose for them on the calibration prompts.
type Gauge struct {
	Forbidden []int   `json:"forbidden"`
	ROC       teh.ROC `json:"roc"`
}

// Category is one behaviour category's part of the profile.
type Category struct {
	Name  string `json:"name"`
	Gauge Gauge  `json:"gauge"`
	// Scores are the Snipe coordinate scores s_i (k of them).
	Scores []float64 `json:"scores"`
	// Direction is the category probe direction (unit, d): harm mean minus
	// benign mean of the states.
	Direction []float64 `json:"direction"`
	// Snipe is the projector's coordinates and what calibration measured
	// with it applied: harm reduction and benign collateral (fractions).
	Snipe Snipe `json:"snipe"`
}

// Snipe is a category's projector as calibrated.
type Snipe struct {
	Coords     []int       `json:"coords"`
	Reduction  float64     `json:"reduction"`
	Collateral float64     `json:"collateral"`
	StoppedBy  string      `json:"stopped_by"`
	Steps      []SnipeStep `json:"steps,omitempty"`
	// HeldOut is what the projector does on prompts and text it was not
	// selected on (the category's held-out harm prompts, the held-out
	// benign text): Reduction and Collateral above are measured on the
	// prompts the greedy selection saw, so they flatter it. Nil in
	// profiles made before it was measured.
	HeldOut *SnipeMeasure `json:"held_out,omitempty"`
}

// The gauge positions of Profile.GaugePosition and Options.GaugePosition.
const (
	GaugeMean = "mean"
	GaugeLast = "last"
)

// GaugeAtLast says whether the gauges read a prompt's last token.
func (p *Profile) GaugeAtLast() bool { return p.GaugePosition == GaugeLast }

// SnipeMeasure is a projector's harm reduction and benign collateral
// (fractions) on one set of prompts.
type SnipeMeasure struct {
	Reduction  float64 `json:"reduction"`
	Collateral float64 `json:"collateral"`
	// Refusals is what a user can read: of the category's held-out harm
	// prompts, how many greedy replies refuse (IsRefusal) without and with
	// the projector. Reduction is a change in a centred probe score, which
	// can pass 100 % and means nothing to a reader; this is the field's
	// measure (Heretic's). Nil in older profiles and where the source
	// cannot decode replies.
	Refusals *RefusalChange `json:"refusals,omitempty"`
}

// RefusalChange counts refused replies among Prompts prompts, without
// (Before) and with (After) an intervention.
type RefusalChange struct {
	Prompts int `json:"prompts"`
	Before  int `json:"before"`
	After   int `json:"after"`
	// Tokens is the length of each greedy reply decoded.
	Tokens int `json:"tokens"`
}

// SnipeStep is one greedy step: the coordinates so far and what they did.
type SnipeStep struct {
	Coords     []int   `json:"coords"`
	Reduction  float64 `json:"reduction"`
	Collateral float64 `json:"collateral"`
}

// Stats describe the calibration run.
type Stats struct {
	Prompts      int     `json:"prompts"`
	Tokens       int     `json:"tokens"`
	BenignTokens int     `json:"benign_tokens"`
	BaselineCE   float64 `json:"baseline_ce"` // nats/token on the benign text, no projector
	Seconds      float64 `json:"seconds"`
	Budget       float64 `json:"budget"`
	MaxCoords    int     `json:"max_coords"`
}

// Category returns the category named name.
func (p *Profile) Category(name string) (*Category, bool) {
	for i := range p.Categories {
		if p.Categories[i].Name == name {
			return &p.Categories[i], true
		}
	}
	return nil, false
}

// CategoryNames lists the profile's categories in order.
func (p *Profile) CategoryNames() []string {
	out := make([]string, len(p.Categories))
	for i, c := range p.Categories {
		out[i] = c.Name
	}
	return out
}

// Check returns an error wrapping ErrOtherModel unless the profile was built
// for the model file with this sha256.
func (p *Profile) Check(sha256 string) error {
	if p.Model.SHA256 != sha256 {
		name := p.Model.Name
		if name == "" {
			name = p.Model.File
		}
		return fmt.Errorf("%w: it is for %s (sha256 %.12s…), this model's sha256 is %.12s…; run `isagi calibrate` for this model",
			ErrOtherModel, name, p.Model.SHA256, sha256)
	}
	return nil
}

// validate checks the shapes a profile's users rely on, so that a damaged
// or hand-edited file is refused instead of crashing the forward pass.
func (p *Profile) validate(layers int) error {
	switch {
	case p.D <= 0 || p.K <= 0 || p.K > p.D:
		return fmt.Errorf("basis of %d×%d", p.D, p.K)
	case len(p.Mu) != p.D:
		return fmt.Errorf("mean of %d values for d=%d", len(p.Mu), p.D)
	case p.B == nil:
		return errors.New("no basis")
	case len(p.Categories) > MaxCategories:
		return fmt.Errorf("%d categories, at most %d", len(p.Categories), MaxCategories)
	case p.GaugePosition != "" && p.GaugePosition != GaugeMean && p.GaugePosition != GaugeLast:
		return fmt.Errorf("gauge position %q, want %q or %q", p.GaugePosition, GaugeMean, GaugeLast)
	case layers > 0 && (p.Layer < 0 || p.Layer >= layers || p.SnipeLayer < 0 || p.SnipeLayer >= layers):
		return fmt.Errorf("layers %d/%d outside a %d-block model", p.Layer, p.SnipeLayer, layers)
	}
	if r, c := p.B.Dims(); r != p.D || c != p.K {
		return fmt.Errorf("basis of %d×%d, header says %d×%d", r, c, p.D, p.K)
	}
	coords := func(what string, cs []int) error {
		for _, c := range cs {
			if c < 0 || c >= p.K {
				return fmt.Errorf("%s: coordinate %d outside 0…%d", what, c, p.K-1)
			}
		}
		return nil
	}
	if err := coords("overall gauge", p.Overall.Forbidden); err != nil {
		return err
	}
	if g := p.COG; g != nil && !(g.Tau >= cog.MinGate && g.Tau <= cog.RetrieveBelow) {
		return fmt.Errorf("memory gate τ = %v outside %g…%g", g.Tau, cog.MinGate, cog.RetrieveBelow)
	}
	for _, c := range p.Categories {
		if err := coords(c.Name+" gauge", c.Gauge.Forbidden); err != nil {
			return err
		}
		if err := coords(c.Name+" snipe", c.Snipe.Coords); err != nil {
			return err
		}
		if len(c.Direction) != p.D {
			return fmt.Errorf("%s: probe direction of %d values", c.Name, len(c.Direction))
		}
	}
	return nil
}

// ProfilePath is where the profile of the model with this sha256 lives
// under dir (the data directory's profiles/).
func ProfilePath(dir, sha256 string) string {
	return filepath.Join(dir, fmt.Sprintf("%.16s.geometry.miku", sha256))
}

// Save writes the profile atomically (a .miku container: the profile's
// figures as JSON knobs, the mean and basis as checksummed sections).
func (p *Profile) Save(path, appVersion string) error {
	knobs, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("geometry: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("geometry: %w", err)
	}
	created := p.Created
	if created.IsZero() {
		created = time.Now().UTC()
	}
	return miku.Write(path, &miku.File{
		Header: miku.Header{
			FormatVersion: miku.FormatVersion, AppVersion: appVersion,
			Created: created, Updated: time.Now().UTC(), Model: p.Model, Knobs: knobs,
		},
		Sections: []miku.Section{
			{Name: "ugt.mu", Required: true, Data: float64Bytes(p.Mu)},
			{Name: "ugt.basis", Required: true, Data: float64Bytes(p.B.RawMatrix().Data)},
		},
	})
}

// maxProfileBytes bounds the profile file LoadProfile reads whole. A
// profile is a few MiB (its basis is d×k float64s); a larger file is not
// one, and reading it would only exhaust memory.
const maxProfileBytes = 1 << 30

// LoadProfile reads a profile written by Save. layers, when positive, is
// the model's block count, checked against the probe layers. A damaged
// file, a newer format or a malformed profile is an error naming the file,
// and so is a path that is not a regular file (a device such as /dev/zero
// never ends) or a file over 1 GiB.
func LoadProfile(path string, layers int) (*Profile, error) {
	data, err := regfile.ReadRegular(path, maxProfileBytes)
	if err != nil {
		return nil, fmt.Errorf("geometry: %w", err)
	}
	p, err := ParseProfile(data, layers)
	if err != nil {
		return nil, fmt.Errorf("geometry: %s: %w", path, err)
	}
	return p, nil
}

// ParseProfile decodes a profile file's bytes (see LoadProfile); errors do
// not name a file.
func ParseProfile(data []byte, layers int) (*Profile, error) {
	f, err := miku.Decode(data)
	if err != nil {
		return nil, err
	}
	p := new(Profile)
	if err := json.Unmarshal(f.Header.Knobs, p); err != nil {
		return nil, err
	}
	if p.Format > ProfileFormat {
		return nil, fmt.Errorf("profile format %d is newer than this build's %d: upgrade isagi", p.Format, ProfileFormat)
	}
	if p.Format < ProfileFormat {
		return nil, fmt.Errorf("profile format %d is older than this build's %d: run `isagi calibrate` again", p.Format, ProfileFormat)
	}
	if _, req := f.Unknown("ugt.mu", "ugt.basis"); len(req) > 0 {
		return nil, fmt.Errorf("required sections %v unknown to this build", req)
	}
	p.Model, p.Created = f.Header.Model, f.Header.Created
	mu, ok := f.Section("ugt.mu")
	if !ok {
		return nil, errors.New("no ugt.mu section")
	}
	basis, ok := f.Section("ugt.basis")
	if !ok {
		return nil, errors.New("no ugt.basis section")
	}
	// Bounded first, so that 8·D·K cannot overflow into a match.
	if p.D <= 0 || p.D > maxWidth || p.K <= 0 || p.K > p.D || len(mu.Data) != 8*p.D || len(basis.Data) != 8*p.D*p.K {
		return nil, fmt.Errorf("sections do not hold a %d×%d basis", p.D, p.K)
	}
	p.Mu = bytesFloat64(mu.Data)
	p.B = mat.NewDense(p.D, p.K, bytesFloat64(basis.Data))
	if err := p.validate(layers); err != nil {
		return nil, err
	}
	return p, nil
}

func float64Bytes(v []float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func bytesFloat64(b []byte) []float64 {
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}
