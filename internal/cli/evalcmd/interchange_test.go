package evalcmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// A model against itself: the map is the identity, every overlap 1, and
// swapping its own component back changes nothing, while setting it to the
// mean does.
func TestEvalInterchangeSelf(t *testing.T) {
	kjv := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	text := filepath.Join(t.TempDir(), "text.txt")
	lines := "In the beginning God created the heaven and the earth.\nAnd the earth was without form, and void.\n" +
		"And God said, Let there be light: and there was light.\nAnd God saw the light, that it was good.\n"
	if err := os.WriteFile(text, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "eval", "interchange", "--model", kjv, "--model-b", kjv, "--k", "8", "--text", text, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var r XReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(r.Overlaps) != 1 || r.Overlaps[0].Layer != 5 || r.K != 8 || r.D != 256 {
		t.Fatalf("report %+v", r)
	}
	o := r.Overlaps[0]
	if o.Raw < 1-1e-9 || o.Aligned < 1-1e-6 || o.FitResidual > 1e-6 || o.HeldoutResidual > 1e-6 || math.Abs(o.Scale-1) > 1e-6 {
		t.Errorf("self overlap %+v: want raw = aligned = 1, residuals 0, scale 1", o)
	}
	if math.Abs(o.Chance-8.0/256) > 1e-12 || o.AlignedShuffled > 0.9 {
		t.Errorf("chance %g, shuffled-pairs null %g", o.Chance, o.AlignedShuffled)
	}
	seen := map[string]XVariant{}
	for _, v := range r.Interchange {
		seen[v.Name] = v
	}
	if v := seen["swap UGT component, aligned"]; v.KL > 1e-4 || v.Agreement < 1 {
		t.Errorf("swapping a model's component for its own: %+v", v)
	}
	if v := seen["UGT component set to the mean"]; v.KL < 1e-3 {
		t.Errorf("setting the component to the mean changed nothing: %+v", v)
	}
	if r.MeasuredTokens < 10 {
		t.Errorf("measured %d tokens", r.MeasuredTokens)
	}
}

func TestEvalInterchangeUsage(t *testing.T) {
	kjv := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", kjv}, "--model-b"},
		{[]string{"--model", kjv, "--model-b", kjv, "--k", "0"}, "--k 0"},
		{[]string{"--model", kjv, "--model-b", kjv, "--layers", "9"}, "--layers"},
		{[]string{"--model", kjv, "--model-b", kjv, "--k", "400"}, "--k 400"},
	} {
		_, _, err := runCmd(t, append([]string{"eval", "interchange"}, tc.args...)...)
		if base.ExitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("eval interchange %q: exit %d, %v; want a usage error naming %s", tc.args, base.ExitCode(err), err, tc.want)
		}
	}
}
