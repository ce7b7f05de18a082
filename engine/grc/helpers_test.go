package grc

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// testBackend is what the compressed-model tests run on; engine/model's
// testBackend is the conformance switch, this one follows it.
func testBackend() backend.Backend { return cpu.New(nil) }

func readJSON(t testing.TB, rel string, v any) {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

func openModel(t testing.TB, rel string) *model.Model {
	t.Helper()
	m, err := model.Open(fixtures.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// stories is the part of stories260k/golden.json these tests read.
type stories struct {
	ProbeTokens []int32 `json:"probe_tokens"`
}

// buildSpec plans spec (with the calibration profile prof, or nil) and
// builds it with gb.
func buildSpec(tb testing.TB, gb *Builder, spec Spec, prof *Profile) *Compression {
	tb.Helper()
	plan, err := gb.Plan(context.Background(), spec, prof, nil)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := gb.BuildPlan(context.Background(), plan, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}
