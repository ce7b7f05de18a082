package session

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
	"github.com/isagi-lab/isagi/miku"
)

// loadKJV loads the tiny KJV model as the command-line tools do (no
// session), on the CPU with one worker.
func loadKJV(t *testing.T) (string, *model.Model, *tokenizer.Tokenizer, backend.Backend) {
	t.Helper()
	path := fixtures.Path(t, "kjv/kjv-q8_0.gguf")
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		f.Close()
		t.Fatal(err)
	}
	m, err := model.Load(f)
	if err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	pool := tensor.NewPool(1)
	t.Cleanup(pool.Close)
	return path, m, tok, cpu.New(tensor.NewKernels(pool))
}

// TestResolveGRC: a request's defaults are filled in, the calibration text
// is tokenised for every build (its figures) but identified in the key
// only for MCR (another text, another id), and what the model refuses is
// an error.
func TestResolveGRC(t *testing.T) {
	_, m, tok, _ := loadKJV(t)
	job, err := ResolveGRC(m, tok, GRCRequest{Rank: 64})
	if err != nil {
		t.Fatal(err)
	}
	if want := (grc.Spec{Slots: grc.QKV, Alloc: grc.AllocUniform, K: 64}); job.Spec != want || len(job.Calib) == 0 || job.Key() != "k64-qkv" {
		t.Errorf("uniform: %+v, key %q", job, job.Key())
	}
	job, err = ResolveGRC(m, tok, GRCRequest{Rank: 64, Slots: grc.QKV | grc.O, Alloc: grc.AllocGP})
	if err != nil {
		t.Fatal(err)
	}
	if job.Spec.Floor != grc.DefaultFloor(m) || job.Spec.Max != m.Dim || job.Spec.Calib != "" {
		t.Errorf("gp: %+v", job)
	}

	builtin, err := ResolveGRC(m, tok, GRCRequest{Rank: 64, Alloc: grc.AllocMCR})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tok.Encode(grc.CalibrationText, tokenizer.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(builtin.Calib, ids) || builtin.Spec.Calib != grc.CalibrationID(ids) || builtin.BOS != tok.BOS() {
		t.Errorf("mcr, built-in text: calib id %q, %d tokens, bos %d", builtin.Spec.Calib, len(builtin.Calib), builtin.BOS)
	}
	own, err := ResolveGRC(m, tok, GRCRequest{Rank: 64, Alloc: grc.AllocMCR, CalibText: "In the beginning God created the heaven and the earth."})
	if err != nil {
		t.Fatal(err)
	}
	if own.Spec.Calib == builtin.Spec.Calib || own.Key() == builtin.Key() {
		t.Errorf("another calibration text keeps the key %q", own.Key())
	}

	for name, req := range map[string]GRCRequest{
		"rank 0":              {},
		"rank above width":    {Rank: m.Dim + 1},
		"floor on uniform":    {Rank: 64, Floor: 32},
		"calibration for gp":  {Rank: 64, Alloc: grc.AllocGP, CalibText: "text"},
		"calibration uniform": {Rank: 64, CalibText: "text"},
	} {
		if job, err := ResolveGRC(m, tok, req); err == nil {
			t.Errorf("%s: accepted as %+v", name, job.Spec)
		}
	}
}

// TestBuildGRCSharesTheSessionsCache: a compression BuildGRC built (as
// isagi run --rank does) is the file a session's /set rank reads, without
// building again, and BuildGRC reads what a session built; a cache hit never
// reports progress.
func TestBuildGRCSharesTheSessionsCache(t *testing.T) {
	path, m, tok, k := loadKJV(t)
	dir := t.TempDir()
	sum, err := FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	cache := &GRCCache{Dir: dir, Model: miku.ModelRef{File: filepath.Base(path), SHA256: sum}}
	build := func(req GRCRequest) (g *grc.Compression, built bool, calls int) {
		t.Helper()
		job, err := ResolveGRC(m, tok, req)
		if err != nil {
			t.Fatal(err)
		}
		g, built, err = BuildGRC(context.Background(), m, k, nil, cache, job, func(done, total int) { calls++ })
		if err != nil {
			t.Fatal(err)
		}
		return g, built, calls
	}
	g, built, calls := build(GRCRequest{Rank: 64})
	if !built || calls == 0 || g.K != 64 {
		t.Fatalf("first build: built %v, %d progress calls, rank %d", built, calls, g.K)
	}
	file, err := cache.Path(m, g.Plan.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("not cached: %v", err)
	}
	if _, built, calls := build(GRCRequest{Rank: 64}); built || calls != 0 {
		t.Fatalf("second build: built %v, %d progress calls; want the cache's", built, calls)
	}

	s, err := Open(path, Options{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	set := func(name, value string) int {
		t.Helper()
		calls := 0
		if err := s.SetCtx(context.Background(), name, value, func(done, total int) { calls++ }); err != nil {
			t.Fatal(err)
		}
		return calls
	}
	if calls := set("rank", "64"); calls != 0 || s.Info().Rank != 64 {
		t.Fatalf("/set rank 64 after the CLI's build: %d progress calls, rank %d", calls, s.Info().Rank)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.miku"))
	if len(files) != 1 || files[0] != file {
		t.Fatalf("cache holds %v, want only %s", files, file)
	}

	// The other way, with MCR on the built-in text: the session builds,
	// BuildGRC reads it.
	set("rank", "off")
	set("alloc", "mcr")
	if calls := set("rank", "64"); calls == 0 {
		t.Fatal("/set rank 64 under mcr did not build")
	}
	if _, built, calls := build(GRCRequest{Rank: 64, Alloc: grc.AllocMCR}); built || calls != 0 {
		t.Fatalf("mcr after the session's build: built %v, %d progress calls; want the cache's", built, calls)
	}
}
