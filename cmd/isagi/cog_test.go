package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/testkit/quickprofile"
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
	var rep geometry.COGReport
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

// chatFixture is the chat fixture model (scripts/fixtures/chat builds
// it; it is not kept in git).
const chatFixture = "../../testdata/models/chat.gguf"

// `isagi eval cog --augment` on the chat fixture, on three of its near
// questions: the summary and the JSON report come out, every condition
// scored on every question.
func TestEvalCOGAugment(t *testing.T) {
	if _, err := os.Stat(chatFixture); err != nil {
		t.Skipf("the chat fixture model %s is not here (scripts/fixtures/chat builds it): %v", chatFixture, err)
	}
	isolate(t)
	s, err := session.Open(chatFixture, session.Options{Threads: 2, Ctx: 512})
	if err != nil {
		t.Fatal(err)
	}
	p := quickprofile.Calibrate(t, s.CalibrationSource())
	if p.Model, err = s.ModelRef(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := filepath.Join(os.Getenv("XDG_DATA_HOME"), "isagi", "profiles")
	if err := p.Save(geometry.ProfilePath(dir, p.Model.SHA256), "test"); err != nil {
		t.Fatal(err)
	}
	set := "../../testdata/cog-augment.jsonl"
	var out, errb bytes.Buffer
	if err := cmdEvalCOG([]string{"--model", chatFixture, "--augment", set, "--items", "3"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{"AUGMENT on near questions", "3 questions", "tier of the question against its paraphrase: retrieve ",
		"memory off ", "memory on (the stored reply shown where the tier is AUGMENT", "another entity's answer shown", "all 3 paraphrases stored"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("eval cog --augment output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := cmdEvalCOG([]string{"--model", chatFixture, "--augment", set, "--items", "3", "--json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var rep geometry.AugmentReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Items != 3 || len(rep.Cases) != 3 || rep.Off.N != 3 || rep.Memory.N != 3 || rep.Stored.N != 3 {
		t.Fatalf("eval cog --augment --json: %v\n%s", err, out.String())
	}
	t.Logf("off %d/3, memory %d/3, forced %d/3, other shown %d/3; tiers %v", rep.Off.Correct, rep.Memory.Correct, rep.Forced.Correct, rep.Wrong.Correct, rep.Tiers)
	if err := cmdEvalCOG([]string{"--model", chatFixture, "--items", "3"}, &out, &errb); err == nil {
		t.Error("--items without --augment was accepted")
	}
}
