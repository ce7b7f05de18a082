package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/miku"
)

// GRCCache is the on-disk cache of built GRC compressions of one model
// file, shared by the TUI and `isagi run|bench|ppl --rank`: one checksummed
// .miku file per compression, named by the model's sha256, the rank, the
// spec's key (slot set; allocation and bounds; calibration) and the
// format, so that a cache can never be picked up for the wrong model or
// knobs. A file that fails any check is rebuilt, never used.
type GRCCache struct {
	// Dir is the cache directory (<data dir>/geometry).
	Dir string
	// Model names the model file; SHA256 is required.
	Model miku.ModelRef
	// AppVersion is recorded in the files written.
	AppVersion string
}

// Path is where the compression spec asks for is cached.
func (c *GRCCache) Path(m *model.Model, spec grc.Spec) (string, error) {
	sp, err := grc.Resolve(m, spec)
	if err != nil {
		return "", err
	}
	if len(c.Model.SHA256) < 16 {
		return "", errors.New("session: GRC cache without the model's sha256")
	}
	return filepath.Join(c.Dir, fmt.Sprintf("grc-%.16s-k%d-%s-v%d.miku", c.Model.SHA256, sp.K, sp.Key(), grc.CacheFormat)), nil
}

// Load reads the compression spec asks for. Any problem — missing,
// corrupt, another model, another format or knobs, wrong shapes, a basis
// that fails the depth-sink check — returns an error and the caller
// rebuilds.
func (c *GRCCache) Load(m *model.Model, spec grc.Spec) (*grc.Compression, error) {
	path, err := c.Path(m, spec)
	if err != nil {
		return nil, err
	}
	f, err := miku.Read(path)
	if err != nil {
		return nil, err
	}
	if f.Header.Model.SHA256 != c.Model.SHA256 {
		return nil, fmt.Errorf("%s: made for another model", path)
	}
	blobs := make([]grc.CacheBlob, len(f.Sections))
	for i, s := range f.Sections {
		blobs[i] = grc.CacheBlob{Name: s.Name, Data: s.Data}
	}
	g, err := grc.FromCache(m, spec, f.Header.Knobs, blobs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// Save writes g to the cache (atomically, through miku.Write).
func (c *GRCCache) Save(m *model.Model, g *grc.Compression) error {
	path, err := c.Path(m, g.Plan.Spec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("session: GRC cache: %w", err)
	}
	knobs, blobs, err := g.CacheSections()
	if err != nil {
		return err
	}
	secs := make([]miku.Section, len(blobs))
	for i, b := range blobs {
		secs[i] = miku.Section{Name: b.Name, Required: true, Data: b.Data}
	}
	now := time.Now().UTC()
	return miku.Write(path, &miku.File{
		Header: miku.Header{
			FormatVersion: miku.FormatVersion, AppVersion: c.AppVersion, Created: now, Updated: now,
			Model: c.Model, Knobs: knobs,
		},
		Sections: secs,
	})
}

// Get returns the compression spec asks for: from the cache when it holds
// a valid one, else planned and built with gb (whose slot set must be
// spec's) and saved. profile, the calibration pass, is called only on a
// miss: MCR and the sink bypass need it; for the others it gives the
// figures (intrinsic dimension, the depth-sink block), and a build goes
// on without them when it fails or is nil. progress sees blocks
// done/total of the build (twice for GP: the decompositions, then the
// projections); a cancelled
// ctx stops it with ctx.Err(). A nil c builds without a cache; a cache
// that cannot be written costs the next start a rebuild, nothing else.
// built reports whether it was built.
func (c *GRCCache) Get(ctx context.Context, m *model.Model, gb *grc.Builder, spec grc.Spec,
	profile func(context.Context) (*grc.Profile, error), progress func(done, total int)) (g *grc.Compression, built bool, err error) {
	if c != nil {
		if g, err := c.Load(m, spec); err == nil {
			return g, false, nil
		}
	}
	needed := spec.Alloc == grc.AllocMCR || spec.SinkBypass
	var prof *grc.Profile
	switch {
	case profile != nil:
		if prof, err = profile(ctx); err != nil {
			if needed || ctx.Err() != nil {
				return nil, false, fmt.Errorf("session: calibration: %w", err)
			}
			prof = nil
		}
	case needed:
		return nil, false, errors.New("session: MCR and the sink bypass need calibration")
	}
	plan, err := gb.Plan(ctx, spec, prof, progress)
	if err != nil {
		return nil, false, err
	}
	g, err = gb.BuildPlan(ctx, plan, progress)
	if err != nil {
		return nil, false, err
	}
	if c != nil {
		_ = c.Save(m, g)
	}
	return g, true, nil
}

// FileSHA256 is the hex sha256 of a file's bytes (a model file's identity
// in caches and session files). A path that is not a regular file is
// refused: hashing a device such as /dev/zero would never end, and opening
// a FIFO would wait for a writer.
func FileSHA256(path string) (string, error) {
	f, _, err := regfile.Open(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		return "", fmt.Errorf("session: %w", err) // the sentence names the path
	}
	if err != nil {
		return "", fmt.Errorf("session: hashing %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("session: hashing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
