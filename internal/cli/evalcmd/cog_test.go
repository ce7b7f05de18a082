package evalcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/internal/testkit/quickprofile"
	"github.com/isagi-lab/isagi/session"
)

// runCmd runs `isagi eval ARGS…` in process: args[0] is "eval".
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	if len(args) == 0 || args[0] != "eval" {
		t.Fatalf("runCmd %q: not eval", args)
	}
	return clitest.Run(t, Main, args[1:]...)
}

// chatFixture is the chat fixture model (scripts/fixtures/chat builds
// it; it is not kept in git).
const chatFixture = "../../../testdata/models/chat.gguf"

// `isagi eval cog` prints the table, the summary and the histograms; the
// demo serves no near-miss a wrong answer and every word-for-word repeat.
func TestEvalCOG(t *testing.T) {
	clitest.DemoProfile(t)
	out, errb, err := runCmd(t, "eval", "cog", "--demo")
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	for _, want := range []string{"gate τ ", "near-miss  negation", "repeat     punctuation", "mid-conversation",
		"gate:      precision 100.0%, recall 100.0% of word-for-word repeats, 100.0% of all repeats; 0 near-misses served a wrong answer",
		"before:    precision 100.0%, recall 100.0% of word-for-word repeats",
		"seed rule: precision", "answers given mid-conversation: 100.0% of all repeats served at the same point; 0 questions served one in another conversation",
		"plain distance from the stored request"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval cog output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runCmd(t, "eval", "cog", "--demo", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep evaluate.COGReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Rows) != 8 || !rep.Calibrated {
		t.Fatalf("eval cog --json: %v, %+v", err, rep)
	}
	// Every case, spacing or punctuation variant is served; an answer
	// given mid-conversation never in another one.
	for _, r := range rep.Rows {
		if r.Group == "repeat" && (r.Served != r.N || r.Wrong != 0 || r.MidSame != r.N) || r.MidOther != 0 {
			t.Errorf("%s/%s: %d of %d served (%d wrong); mid-conversation answers %d at the same point, %d elsewhere", r.Group, r.Kind, r.Served, r.N, r.Wrong, r.MidSame, r.MidOther)
		}
	}
}

// `isagi eval cog --augment` on the chat fixture, on three of its near
// questions: the summary and the JSON report come out, every condition
// scored on every question.
func TestEvalCOGAugment(t *testing.T) {
	if _, err := os.Stat(chatFixture); err != nil {
		t.Skipf("the chat fixture model %s is not here (scripts/fixtures/chat builds it): %v", chatFixture, err)
	}
	clitest.Isolate(t)
	s, err := session.Open(chatFixture, session.Options{Threads: 2, Ctx: 512})
	if err != nil {
		t.Fatal(err)
	}
	p := quickprofile.Calibrate(t, s.Geometry().CalibrationSource())
	if p.Model, err = s.Probe().Ref(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := filepath.Join(os.Getenv("XDG_DATA_HOME"), "isagi", "profiles")
	if err := p.Save(geometry.ProfilePath(dir, p.Model.SHA256), "test"); err != nil {
		t.Fatal(err)
	}
	set := "../../../testdata/cog-augment.jsonl"
	var out, errb bytes.Buffer
	if err := cmdEvalCOG(clitest.Env(&out, &errb), []string{"--model", chatFixture, "--augment", set, "--items", "3"}); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{"AUGMENT on near questions", "3 questions", "tier of the question against its paraphrase: retrieve ",
		"memory off ", "memory on (the stored reply shown where the tier is AUGMENT", "another entity's answer shown", "all 3 paraphrases stored"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("eval cog --augment output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := cmdEvalCOG(clitest.Env(&out, &errb), []string{"--model", chatFixture, "--augment", set, "--items", "3", "--json"}); err != nil {
		t.Fatal(err)
	}
	var rep evaluate.AugmentReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Items != 3 || len(rep.Cases) != 3 || rep.Off.N != 3 || rep.Memory.N != 3 || rep.Stored.N != 3 {
		t.Fatalf("eval cog --augment --json: %v\n%s", err, out.String())
	}
	t.Logf("off %d/3, memory %d/3, forced %d/3, other shown %d/3; tiers %v", rep.Off.Correct, rep.Memory.Correct, rep.Forced.Correct, rep.Wrong.Correct, rep.Tiers)
	if err := cmdEvalCOG(clitest.Env(&out, &errb), []string{"--model", chatFixture, "--items", "3"}); err == nil {
		t.Error("--items without --augment was accepted")
	}
}

// TestEvalCOGAugmentFolder: --augment naming a folder is refused by name,
// not with the reader's "read DIR: is a directory".
func TestEvalCOGAugmentFolder(t *testing.T) {
	dir := t.TempDir()
	_, _, err := runCmd(t, "eval", "cog", "--demo", "--augment", dir)
	if err == nil || !strings.Contains(err.Error(), dir+" is not a regular file (a directory)") || strings.Contains(err.Error(), "read "+dir) {
		t.Errorf("--augment %s: %v", dir, err)
	}
}
