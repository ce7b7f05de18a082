package evalcmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// TestEvalGTCCommand: eval gtc on a few kjv verses prints the table and
// --json a report whose coverages are shares, whose errors are finite and
// whose token counts stay within the horizon; bad flags are one clear
// line, before any model is loaded.
func TestEvalGTCCommand(t *testing.T) {
	kjv := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	text := clitest.Fixture(t, "kjv/heldout.txt")
	small := []string{"eval", "gtc", "--model", kjv, "--text", text, "--prompts", "8", "--tokens", "10", "--horizon", "2", "--rank", "4", "--clusters", "2"}
	out, errs, err := runCmd(t, small...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	for _, want := range []string{"farthest all", "random covered", "n-gram", "one model decode step"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	out, errs, err = runCmd(t, append(small, "--json", "--split", "alternate")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var rep gtcReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Prompts != [2]int{4, 4} || rep.Horizon != 2 || rep.Records < 8 || rep.Queries < 8 || len(rep.Rows) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Rows {
		if r.Kept != (rep.Records+2)/4 && r.Kept != rep.Records/4 {
			t.Errorf("%s: kept %d of %d records at 25 %%", r.Select, r.Kept, rep.Records)
		}
		if !(r.Coverage >= 0 && r.Coverage <= 1) || !(r.Radius > 0) || r.All.N != rep.Queries {
			t.Errorf("%s: coverage %g, radius %g, %d queries", r.Select, r.Coverage, r.Radius, r.All.N)
		}
		if !(r.All.Plain > 0 && r.All.Corrected > 0 && r.All.Mean > 0) || r.All.PrefixPlain > 2 || r.All.PrefixCorrected > 2 {
			t.Errorf("%s: errors %+v", r.Select, r.All)
		}
		// A same-path query's stored tokens are the true ones, by definition.
		if r.SamePath.N > 0 && r.SamePath.PrefixPlain != 2 {
			t.Errorf("%s: same-path queries' stored tokens agree on %g of 2", r.Select, r.SamePath.PrefixPlain)
		}
	}
	for _, bad := range [][]string{
		{"--keep", "0"}, {"--keep", "1.5"}, {"--horizon", "0"}, {"--tokens", "2"}, {"--rank", "0"}, {"--ridge", "-1"}, {"--split", "odd"}, {"--prompts", "-1"},
	} {
		_, _, err := runCmd(t, append([]string{"eval", "gtc", "--model", kjv, "--text", text}, bad...)...)
		if base.ExitCode(err) != 2 || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("eval gtc %v: exit %d, %v", bad, base.ExitCode(err), err)
		}
	}
	if _, _, err := runCmd(t, "eval", "gtc", "--model", kjv); base.ExitCode(err) != 2 || !strings.Contains(err.Error(), "--text") {
		t.Errorf("eval gtc without --text: exit %d, %v", base.ExitCode(err), err)
	}
}
