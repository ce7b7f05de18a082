package tokenize

import (
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// runCmd runs `isagi tokenize ARGS…` in process: args[0] is "tokenize".
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	if len(args) == 0 || args[0] != "tokenize" {
		t.Fatalf("runCmd %q: not tokenize", args)
	}
	return clitest.Run(t, Main, args[1:]...)
}

func TestTokenizeRoundTrip(t *testing.T) {
	m := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	out, _, err := runCmd(t, "tokenize", "--model", m, "And God said")
	if err != nil || out != "1 300 391 394\n" {
		t.Fatalf("tokenize: %q, %v", out, err)
	}
	out, _, err = runCmd(t, "tokenize", "--model", m, "--decode", "1", "300", "391", "394")
	if err != nil || out != "And God said\n" {
		t.Fatalf("decode: %q, %v", out, err)
	}
}
