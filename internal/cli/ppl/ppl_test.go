package ppl

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// runCmd runs `isagi ppl ARGS…` in process: args[0] is "ppl".
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	if len(args) == 0 || args[0] != "ppl" {
		t.Fatalf("runCmd %q: not ppl", args)
	}
	return clitest.Run(t, func(a []string, o, e io.Writer) error { return Main("dev", a, o, e) }, args[1:]...)
}

func TestPPL(t *testing.T) {
	text := filepath.Join(t.TempDir(), "t.txt")
	held, err := os.ReadFile(clitest.Fixture(t, "kjv/heldout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, held[:3000], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := runCmd(t, "ppl", "--model", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"), "--file", text, "--ctx", "128")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var ppl float64
	if _, err := fmt.Sscanf(out, "ppl=%g\n", &ppl); err != nil || ppl <= 1 || ppl > 1000 {
		t.Fatalf("output %q (%v)", out, err)
	}
}
