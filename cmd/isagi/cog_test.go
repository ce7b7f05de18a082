package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
)

// demoProfile isolates the data directories and stores a quickly
// calibrated profile of the demo model where the commands look for it (a
// part of the prompt set, one projector step: the memory gate is
// calibrated as `isagi calibrate` does it).
func demoProfile(t *testing.T) {
	t.Helper()
	isolate(t)
	s, err := session.OpenBytes(demo.Name, demo.Model, session.Options{Threads: 2, Ctx: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	set, err := prompts.Default()
	if err != nil {
		t.Fatal(err)
	}
	for i := range set.Zones {
		set.Zones[i].Train = set.Zones[i].Train[:8]
	}
	for i := range set.Categories {
		set.Categories[i].Train = set.Categories[i].Train[:4]
		set.Categories[i].Heldout = set.Categories[i].Heldout[:1]
	}
	set.Benign.Train, set.Benign.Heldout = set.Benign.Train[:1], set.Benign.Heldout[:1]
	o := geometry.DefaultOptions()
	o.MaxCoords, o.MaxForbidden, o.BenignTokens = 1, 2, 32
	p, err := geometry.Calibrate(context.Background(), s.CalibrationSource(), set, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Model, err = s.ModelRef(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(os.Getenv("XDG_DATA_HOME"), "isagi", "profiles")
	if err := p.Save(geometry.ProfilePath(dir, p.Model.SHA256), "test"); err != nil {
		t.Fatal(err)
	}
}

// The scenario through `isagi run --session` on the demo model:
// distinct prompts of one shape ("In the Nth year X smote Y and Z") are
// never answered from memory; asked again word for word, they are, and
// the session file counts them. (scripts/cog-distinct.sh runs all 100.)
func TestRunSessionDistinctPrompts(t *testing.T) {
	demoProfile(t)
	file := filepath.Join(t.TempDir(), "s.miku")
	kings := []string{"Joash", "Hezekiah", "Asa", "Jehu", "Ahab", "Uzziah"}
	lands := []string{"Edom", "Moab", "Ammon", "Syria", "Gath", "Philistia", "Tyre"}
	var ps []string
	for i := range 12 {
		ps = append(ps, fmt.Sprintf("In the %dth year %s smote %s and %s", i+4, kings[i%len(kings)], lands[i%len(lands)], lands[(i+3)%len(lands)]))
	}
	turn := func(p string) bool {
		t.Helper()
		_, errb, err := runCmd(t, "run", "--demo", "--session", file, "--prompt", p, "-n", "3", "--seed", "1", "-v")
		if err != nil {
			t.Fatalf("%q: %v\n%s", p, err, errb)
		}
		if !strings.Contains(errb, "cog: ") {
			t.Fatalf("%q: no cog line (profile not loaded?):\n%s", p, errb)
		}
		return strings.Contains(errb, ", served from memory: ")
	}
	for _, p := range ps {
		if turn(p) {
			t.Errorf("%q was answered from memory", p)
		}
	}
	for _, p := range ps[:3] {
		if !turn(p) {
			t.Errorf("the repeat %q was not answered from memory", p)
		}
	}
	out, _, err := runCmd(t, "session", "info", file, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Served int `json:"served_from_memory"`
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.Served != 3 {
		t.Fatalf("session info: %d served (%v), want 3\n%s", info.Served, err, out)
	}
}

// `isagi eval cog` prints the table, the summary and the histograms; the
// demo serves no near-miss a wrong answer and every word-for-word repeat.
func TestEvalCOG(t *testing.T) {
	demoProfile(t)
	out, errb, err := runCmd(t, "eval", "cog", "--demo")
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	for _, want := range []string{"gate τ ", "near-miss  negation", "repeat     punctuation",
		"gate:      precision 100.0%, recall 100.0% of word-for-word repeats", "; 0 near-misses served a wrong answer",
		"seed rule: precision", "plain distance from the stored request"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval cog output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runCmd(t, "eval", "cog", "--demo", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep geometry.COGReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Rows) != 8 || !rep.Calibrated {
		t.Fatalf("eval cog --json: %v, %+v", err, rep)
	}
}
