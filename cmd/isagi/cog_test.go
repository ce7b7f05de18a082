package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// The scenario through `isagi run --session` on the demo model:
// distinct prompts of one shape ("In the Nth year X smote Y and Z") are
// never answered from memory; asked again word for word, they are, and
// the session file counts them. (scripts/cog-distinct.sh runs all 100.)
func TestRunSessionDistinctPrompts(t *testing.T) {
	clitest.DemoProfile(t)
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
