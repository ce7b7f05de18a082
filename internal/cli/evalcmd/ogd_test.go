package evalcmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// `isagi eval ogd` runs each chain explored and unexplored over the same
// concepts and reports every step of both.
func TestEvalOGD(t *testing.T) {
	clitest.DemoProfile(t)
	out, errb, err := runCmd(t, "eval", "ogd", "--demo", "--concepts", "2", "--n", "4", "--chain", "0.2,0.1", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	var rep evaluate.OGDReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Concepts != 2 || len(rep.Steps) != 2 || rep.Steps[0].Alpha != 0.2 || rep.Steps[1].Alpha != 0.1 {
		t.Fatalf("report %+v", rep)
	}
	for i, st := range rep.Steps {
		if st.Explored.Replies != 2 || st.Unexplored.Replies != 2 || st.Explored.MeanTEH < 0 || st.Explored.MeanTEH > 100 {
			t.Fatalf("step %d: %+v", i+1, st)
		}
	}
	out, _, err = runCmd(t, "eval", "ogd", "--demo", "--concepts", "1", "--n", "2", "--chain", "0.1")
	if err != nil || !strings.Contains(out, "flagged explored") || !strings.Contains(out, "forbidden subspace") {
		t.Fatalf("eval ogd table: %v\n%s", err, out)
	}
	for _, bad := range [][]string{{"--concepts", "0"}, {"--n", "0"}, {"--chain", "x"}} {
		_, _, err := runCmd(t, append([]string{"eval", "ogd", "--demo"}, bad...)...)
		if base.ExitCode(err) != 2 {
			t.Errorf("eval ogd %v: exit %d, %v", bad, base.ExitCode(err), err)
		}
	}
}
