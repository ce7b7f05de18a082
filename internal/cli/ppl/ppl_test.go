package ppl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// runCmd runs `isagi ppl ARGS…` in process: args[0] is "ppl".
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	if len(args) == 0 || args[0] != "ppl" {
		t.Fatalf("runCmd %q: not ppl", args)
	}
	return clitest.Run(t, Main, args[1:]...)
}

// heldoutText is the first 3000 bytes of kjv's held-out text, in a file.
func heldoutText(t *testing.T) string {
	t.Helper()
	text := filepath.Join(t.TempDir(), "t.txt")
	held, err := os.ReadFile(clitest.Fixture(t, "kjv/heldout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, held[:3000], 0o644); err != nil {
		t.Fatal(err)
	}
	return text
}

func TestPPL(t *testing.T) {
	text := heldoutText(t)
	out, errs, err := runCmd(t, "ppl", "--model", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"), "--file", text, "--ctx", "128")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var ppl float64
	if _, err := fmt.Sscanf(out, "ppl=%g\n", &ppl); err != nil || ppl <= 1 || ppl > 1000 {
		t.Fatalf("output %q (%v)", out, err)
	}
}

// TestPPLVariants: with mechanisms given, ppl scores every variant in one
// run — the dense model, the rank with every mechanism off, each alone,
// all — one line each, labelled so that the dense row cannot be taken
// for the compression's ("off" was), and ends with the "ppl=" line of the
// configuration asked for; a mechanism without --rank is refused.
func TestPPLVariants(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	text := heldoutText(t)
	m := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	out, errs, err := runCmd(t, "ppl", "--model", m, "--file", text, "--ctx", "128", "--rank", "64", "--gauge", "--kv-proj")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var labels []string
	vals := map[string]float64{}
	for _, l := range lines[:len(lines)-1] {
		f := strings.Fields(l)
		var v float64
		if _, err := fmt.Sscanf(f[len(f)-1], "ppl=%g", &v); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		label := strings.Join(f[:len(f)-1], " ")
		labels = append(labels, label)
		vals[label] = v
	}
	if strings.Join(labels, ",") != "dense,rank 64,+gauge,+kv-proj,all" {
		t.Fatalf("variants %q\n%s", labels, out)
	}
	if vals["dense"] == vals["rank 64"] {
		t.Errorf("the dense row scored as the compression: %v", vals)
	}
	var last float64
	if _, err := fmt.Sscanf(lines[len(lines)-1], "ppl=%g", &last); err != nil || last != vals["all"] {
		t.Errorf("last line %q, all %g", lines[len(lines)-1], vals["all"])
	}
	if vals["+kv-proj"] == vals["rank 64"] || !strings.Contains(errs, "KV projection: 8 of 32 values per KV head") {
		t.Errorf("the KV projection changed nothing: %v\n%s", vals, errs)
	}
	if _, _, err := runCmd(t, "ppl", "--model", m, "--file", text, "--gauge"); err == nil || !strings.Contains(err.Error(), "need --rank") {
		t.Errorf("--gauge without --rank: %v", err)
	}
}

// TestPPLAttnRes: --attnres scores the model twice, plain then mixed, with
// the stream's profile, and the last line is the mixed score; a strength
// outside [0, 1] is a usage error.
func TestPPLAttnRes(t *testing.T) {
	text := heldoutText(t)
	kjv := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	out, errs, err := runCmd(t, "ppl", "--model", kjv, "--file", text, "--ctx", "128", "--attnres", "0.35")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "dense ") || !strings.HasPrefix(lines[1], "dense +attnres 0.35 ") ||
		!strings.Contains(lines[2], "stream RMS after each block") || strings.Count(lines[2], "→") != 1+6 {
		t.Fatalf("output:\n%s", out)
	}
	var plain, mixed float64
	if _, err := fmt.Sscanf(strings.Fields(lines[0])[1], "ppl=%g", &plain); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscanf(lines[3], "ppl=%g", &mixed); err != nil {
		t.Fatal(err)
	}
	if !(mixed > plain) {
		t.Errorf("AttnRes at 0.35 scored %g against %g plain: the untrained mix should cost", mixed, plain)
	}
	if _, _, err := runCmd(t, "ppl", "--model", kjv, "--file", text, "--attnres", "2"); err == nil {
		t.Error("--attnres 2 accepted")
	}
}
