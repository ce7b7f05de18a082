package runcmd

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/base"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// endlessZeros is an input that never ends, as /dev/zero. Past guard bytes
// it fails instead, so that a run that reads without bound ends the test
// with an error rather than filling the machine's memory.
type endlessZeros struct{ served, guard int64 }

var errPastGuard = errors.New("endlessZeros: read past the guard")

func (z *endlessZeros) Read(p []byte) (int, error) {
	if z.served > z.guard {
		return 0, errPastGuard
	}
	clear(p)
	z.served += int64(len(p))
	return len(p), nil
}

// TestRunPromptStdinBounded: --prompt - on an input that never ends is
// refused with one sentence once it passes the text limit, having read at
// most one byte past it.
func TestRunPromptStdinBounded(t *testing.T) {
	clitest.Isolate(t)
	in := &endlessZeros{guard: 2 * base.MaxTextBytes}
	var out, errb bytes.Buffer
	env := clitest.Env(&out, &errb)
	env.Stdin = in
	err := Main(env, []string{"--model", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"), "--prompt", "-"})
	if err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Fatalf("want the input refused as larger than 64 MiB, got %v", err)
	}
	if in.served > base.MaxTextBytes+1<<20 {
		t.Fatalf("read %d bytes of stdin, want about the limit (%d)", in.served, base.MaxTextBytes)
	}
}
