package models

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// Hardening II, item 15: `isagi models` keeps a bad file's error out of the
// table's columns — the row says it is unreadable, the error follows the
// table — so the other rows stay narrow and aligned under their headings.
func TestModelsUnreadableErrorBelowTheTable(t *testing.T) {
	clitest.IsolateStore(t)
	dir := clitest.DefaultPaths(t).Models
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "good.gguf"), clitest.TinyModel(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.gguf"), bytes.Repeat([]byte("not a model "), 10), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := Main(clitest.Env(&out, &errb), nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	col := func(line, word string) int { return strings.Index(line, word) }
	head, good, bad, errLine := "", "", "", ""
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "NAME"):
			head = l
		case strings.HasPrefix(l, "good "):
			good = l
		case strings.HasPrefix(l, "bad "):
			bad = l
		case strings.HasPrefix(l, "bad.gguf is unreadable: "):
			errLine = l
		}
	}
	if head == "" || good == "" || bad == "" || errLine == "" {
		t.Fatalf("want a heading, a row for each file and the error on its own line:\n%s", out.String())
	}
	if c := col(head, "ARCH"); c < 0 || col(good, "llama") != c {
		t.Errorf("llama is not under ARCH:\n%s", out.String())
	}
	if q, a := col(head, "QUANT"), col(head, "ARCH"); q-a > len("llama")+2 {
		t.Errorf("the ARCH column is %d wide for a 5-letter architecture:\n%s", q-a, out.String())
	}
	if c := col(head, "TYPES"); col(bad, "(unreadable: see below)") != c {
		t.Errorf("the bad file's row does not say it is unreadable under TYPES:\n%s", out.String())
	}
	if len(strings.TrimPrefix(errLine, "bad.gguf is unreadable: ")) < 5 {
		t.Errorf("the error line does not say what is wrong: %q", errLine)
	}
}
