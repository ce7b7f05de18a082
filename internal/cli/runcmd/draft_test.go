package runcmd

import (
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// TestRunDraft: run --draft gives the same greedy text as a plain run,
// for a compressed drafter (with the online basis) and the n-gram one, and
// -v says what speculation did.
func TestRunDraft(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // the drafter's GRC cache
	m := clitest.Fixture(t, "kjv/kjv-f32.gguf")
	base := []string{"run", "--model", m, "--prompt", "And God said", "--temp", "0", "-n", "32", "-v"}
	plain, errs, err := runCmd(t, base...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	for _, d := range [][]string{
		{"--draft", "rank:64,qkv,ffn", "--draft-n", "3", "--online-basis", "--online-share", "1"},
		{"--draft", "ngram"},
	} {
		out, errs, err := runCmd(t, append(append([]string{}, base...), d...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", d, err, errs)
		}
		if out != plain {
			t.Fatalf("%v: speculative text %q, plain %q", d, out, plain)
		}
		if !strings.Contains(errs, "speculative: ") {
			t.Fatalf("%v: -v says nothing of speculation:\n%s", d, errs)
		}
	}
}
