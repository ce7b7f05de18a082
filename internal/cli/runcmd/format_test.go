package runcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// TestRunFormats: --grammar-file, --json-schema (strict too) and --json
// hold the reply of the kjv model, which knows nothing of JSON, to their
// form; mistakes are one line.
func TestRunFormats(t *testing.T) {
	model := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gbnf := write("yn.gbnf", `root ::= ("yes" | "no") " " [0-9] [0-9]?`)
	schema := write("s.json", `{"type":"object","properties":{"ok":{"type":"boolean"},"colour":{"enum":["red","blue"]}},"required":["ok","colour"],"additionalProperties":false}`)
	run := func(args ...string) string {
		t.Helper()
		out, errs, err := runCmd(t, append([]string{"run", "--model", model, "--prompt", "And God said", "-n", "120"}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errs)
		}
		return strings.TrimSpace(out)
	}
	if out := run("--grammar-file", gbnf, "--temp", "0"); !(strings.HasPrefix(out, "yes ") || strings.HasPrefix(out, "no ")) || len(out) > 6 {
		t.Errorf("--grammar-file: %q", out)
	}
	for _, args := range [][]string{{"--json-schema", schema, "--temp", "0"}, {"--json-schema", schema, "--strict", "--temp", "1", "--seed", "4"}} {
		out := run(args...)
		var v struct {
			OK     *bool  `json:"ok"`
			Colour string `json:"colour"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || v.OK == nil || (v.Colour != "red" && v.Colour != "blue") {
			t.Errorf("%v: %q (%v)", args, out, err)
		}
	}
	if out := run("--json", "--temp", "0"); !strings.HasPrefix(out, "{") {
		t.Errorf("--json: %q", out)
	}
	// A session's turn too.
	clitest.IsolateStore(t)
	file := filepath.Join(dir, "s.miku")
	out, errs, err := runCmd(t, "run", "--model", model, "--session", file, "--prompt", "And God said", "-n", "120", "--json-schema", schema, "--temp", "0")
	if err != nil {
		t.Fatalf("--session: %v\n%s", err, errs)
	}
	if !strings.HasPrefix(strings.TrimSpace(out), `{`) || !json.Valid([]byte(strings.TrimSpace(out))) {
		t.Errorf("--session --json-schema: %q", out)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--json", "--grammar-file", gbnf}, 2, "give one of"},
		{[]string{"--strict"}, 2, "--strict is for --json-schema"},
		{[]string{"--json-schema", write("bad.json", `{"type":"string","pattern":"x"}`)}, 1, "pattern"},
		{[]string{"--grammar-file", write("bad.gbnf", `root ::= missing`)}, 1, "missing"},
	} {
		_, _, err := runCmd(t, append([]string{"run", "--model", model, "--prompt", "x", "-n", "2"}, c.args...)...)
		if err == nil || base.ExitCode(err) != c.code || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: exit %d, %v; want %d and %q", c.args, base.ExitCode(err), err, c.code, c.want)
		}
	}
}
