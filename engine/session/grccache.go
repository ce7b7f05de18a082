package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/miku"
)

// grcCacheFormat versions the GRC cache's contents; a cache written by
// another format is rebuilt, never used.
const grcCacheFormat = 1

// grcMeta is the cache file's knobs: what it holds and for which model.
type grcMeta struct {
	Format int          `json:"format"`
	K      int          `json:"k"`
	Slots  string       `json:"slots"`
	Blocks int          `json:"blocks"`
	Energy [][3]float64 `json:"energy"`
	Types  []uint32     `json:"types"` // per block: Pᵀ, Wq, Wk, Wv
}

// grcCachePath is where rank k of this model is cached: keyed by the
// model's sha256, k, the slot set and the format.
func (s *Session) grcCachePath(k int) (string, error) {
	sum, err := s.ModelSHA256()
	if err != nil {
		return "", err
	}
	return filepath.Join(s.cacheDir, fmt.Sprintf("grc-%.16s-k%d-qkv-v%d.miku", sum, k, grcCacheFormat)), nil
}

// loadGRC reads rank k from the cache. Any problem — missing, corrupt,
// another model, another format, wrong shapes — returns an error and the
// caller rebuilds.
func (s *Session) loadGRC(k int) (*model.GRC, error) {
	path, err := s.grcCachePath(k)
	if err != nil {
		return nil, err
	}
	f, err := miku.Read(path)
	if err != nil {
		return nil, err
	}
	sum, _ := s.ModelSHA256()
	var meta grcMeta
	if err := json.Unmarshal(f.Header.Knobs, &meta); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Header.Model.SHA256 != sum || meta.Format != grcCacheFormat || meta.K != k || meta.Slots != "qkv" ||
		meta.Blocks != s.m.Layers || len(meta.Types) != 4*meta.Blocks || len(f.Sections) != 4*meta.Blocks {
		return nil, fmt.Errorf("%s: made for another model, rank or format", path)
	}
	shape := func(i int) (int, int) {
		qd, kvd := s.m.QDim(), s.m.KVDim()
		switch i {
		case 0:
			return k, s.m.Dim
		case 1:
			return qd, k
		}
		return kvd, k
	}
	parts := make([]model.GRCParts, meta.Blocks)
	for l := range meta.Blocks {
		var ms [4]*tensor.Matrix
		for i := range 4 {
			rows, cols := shape(i)
			m, err := tensor.NewMatrix(tensor.Type(meta.Types[4*l+i]), rows, cols, f.Sections[4*l+i].Data)
			if err != nil {
				return nil, fmt.Errorf("%s: block %d: %w", path, l, err)
			}
			ms[i] = m
		}
		parts[l] = model.GRCParts{PT: ms[0], Wq: ms[1], Wk: ms[2], Wv: ms[3]}
	}
	return s.m.RestoreGRC(k, parts, meta.Energy)
}

// saveGRC writes rank k to the cache (atomically, through miku.Write).
func (s *Session) saveGRC(g *model.GRC) error {
	path, err := s.grcCachePath(g.K)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	meta := grcMeta{Format: grcCacheFormat, K: g.K, Slots: "qkv", Blocks: len(g.Energy), Energy: g.Energy}
	var secs []miku.Section
	for l, p := range g.Parts() {
		for i, m := range []*tensor.Matrix{p.PT, p.Wq, p.Wk, p.Wv} {
			meta.Types = append(meta.Types, uint32(m.Type))
			secs = append(secs, miku.Section{Name: fmt.Sprintf("b%d.%d", l, i), Required: true, Data: m.Data})
		}
	}
	knobs, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	sum, _ := s.ModelSHA256()
	now := time.Now().UTC()
	return miku.Write(path, &miku.File{
		Header: miku.Header{
			FormatVersion: miku.FormatVersion, AppVersion: s.appVersion, Created: now, Updated: now,
			Model: miku.ModelRef{File: filepath.Base(s.info.Path), SHA256: sum, Arch: s.info.Arch, Name: s.info.Name},
			Knobs: knobs,
		},
		Sections: secs,
	})
}
