package runcmd

import (
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// TestRunUnsupportedNamesSupported: running a model whose weight type or
// architecture this build lacks fails with one line that lists what it
// supports. Both files are kjv-q8_0 rebuilt with one change, so everything
// else about them loads.
func TestRunUnsupportedNamesSupported(t *testing.T) {
	clitest.IsolateStore(t)
	dir := t.TempDir()
	rebuild := func(name string, c fixtures.Change) string {
		return fixtures.Rebuilt(t, "kjv/kjv-q8_0.gguf", dir, name, c)
	}
	for _, c := range []struct {
		file string
		want []string
	}{
		{rebuild("q8k.gguf", fixtures.Change{Tensor: "blk.1.attn_v.weight", Type: tensor.Q8_K}), []string{"blk.1.attn_v.weight", "weight type Q8_K", "supported: " + tensor.ComputableNames()}},
		{rebuild("mamba.gguf", fixtures.Change{Arch: "mamba"}), []string{`"mamba"`, "supported: llama, "}},
	} {
		_, _, err := runCmd(t, "run", "--model", c.file, "--prompt", "And God said", "-n", "1")
		if err == nil {
			t.Errorf("%s ran", c.file)
			continue
		}
		for _, want := range c.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q lacks %q", c.file, err, want)
			}
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", c.file, err)
		}
	}
}
