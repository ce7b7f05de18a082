package peer

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindRPCServer(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "rpc-server")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == RPCServerEnv {
				return v
			}
			return ""
		}
	}
	none := func(string) (string, error) { return "", &exec.Error{Name: "rpc-server", Err: exec.ErrNotFound} }
	onPath := func(string) (string, error) { return "/opt/bin/rpc-server", nil }
	broken := func(string) (string, error) { return "", errors.New("permission denied") }

	for _, c := range []struct {
		name, env string
		look      func(string) (string, error)
		want      string
		err       string
	}{
		{"the variable wins over PATH", exe, onPath, exe, ""},
		{"PATH without the variable", "", onPath, "/opt/bin/rpc-server", ""},
		{"neither: none, no error", "", none, "", ""},
		{"a variable naming nothing", filepath.Join(dir, "missing"), onPath, "", "no such file"},
		{"a variable naming a folder", dir, onPath, "", "not an executable"},
		{"a variable naming a plain file", plain, onPath, "", "not an executable"},
		{"PATH look-up failing otherwise", "", broken, "", "permission denied"},
	} {
		got, err := FindRPCServer(env(c.env), c.look)
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
		}
	}
}

// TestSkipLine: a skip appends one line naming the package and the test.
func TestSkipLine(t *testing.T) {
	f := filepath.Join(t.TempDir(), "skips")
	t.Setenv(SkipsEnv, f)
	t.Run("inner", func(t *testing.T) { Skip(t, "no thing: do this") })
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := "skipped internal/testkit/peer TestSkipLine/inner: no thing: do this\n"; string(b) != want {
		t.Errorf("skip line %q, want %q", b, want)
	}
}
