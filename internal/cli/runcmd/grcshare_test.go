package runcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/session"
)

// installModel copies a fixture into the isolated store's models
// directory, so that --model takes its name.
func installModel(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(clitest.Fixture(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	dir := clitest.DefaultPaths(t).Models
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.Base(rel))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cacheFiles lists the GRC cache.
func cacheFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(clitest.DefaultPaths(t).GRCCache, "*.miku"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRunAndSessionShareGRCCache: `isagi run --rank 64` and /set rank 64 in
// a session (the TUI's path) build one compression into one cache file
// under the store's GRC cache directory; whichever comes second reads it
// instead of building, and so does a second run.
func TestRunAndSessionShareGRCCache(t *testing.T) {
	clitest.IsolateStore(t)
	path := installModel(t, "kjv/kjv-q8_0.gguf")
	args := []string{"run", "--rank", "64", "--model", "kjv-q8_0", "--prompt", "x", "-n", "2"}

	_, errb, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb)
	}
	if !strings.Contains(errb, "GRC qkv: [") || !strings.Contains(errb, "built in") {
		t.Fatalf("the first run did not build:\n%s", errb)
	}
	files := cacheFiles(t)
	if len(files) != 1 || !strings.HasSuffix(files[0], "-k64-qkv-v1.miku") {
		t.Fatalf("after run --rank 64 the cache holds %v", files)
	}
	built, err := os.Stat(files[0])
	if err != nil {
		t.Fatal(err)
	}

	// The session opens the model as the TUI does, with the store's cache.
	var mf base.ModelFlags
	s, err := session.Open(path, mf.SessionOptions(session.Options{AppVersion: "dev"}))
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = s.SetCtx(context.Background(), "rank", "64", func(done, total int) { calls++ })
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Errorf("/set rank 64 rebuilt what run --rank 64 cached (%d progress calls)", calls)
	}
	if got := cacheFiles(t); len(got) != 1 || got[0] != files[0] {
		t.Errorf("after /set rank 64 the cache holds %v, want only %s", got, files[0])
	}

	_, errb, err = runCmd(t, args...)
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, errb)
	}
	if !strings.Contains(errb, "(from the cache)") || strings.Contains(errb, "GRC qkv: [") {
		t.Errorf("the second run did not read the cache:\n%s", errb)
	}
	if again, err := os.Stat(files[0]); err != nil || !again.ModTime().Equal(built.ModTime()) {
		t.Errorf("the cache file was rewritten: %v", err)
	}

	// The other way round: a rank the session builds first is the run's.
	s, err = session.Open(path, mf.SessionOptions(session.Options{AppVersion: "dev"}))
	if err != nil {
		t.Fatal(err)
	}
	calls = 0
	err = s.SetCtx(context.Background(), "rank", "48", func(done, total int) { calls++ })
	s.Close()
	if err != nil || calls == 0 {
		t.Fatalf("/set rank 48: %v, %d progress calls", err, calls)
	}
	args[2] = "48"
	if _, errb, err = runCmd(t, args...); err != nil || !strings.Contains(errb, "(from the cache)") {
		t.Errorf("run --rank 48 after /set rank 48: %v\n%s", err, errb)
	}
	if got := cacheFiles(t); len(got) != 2 {
		t.Errorf("cache holds %v, want the rank 64 and 48 files", got)
	}
}

// TestRunCalibFile: --calib FILE calibrates MCR on the file's text (a
// cache entry of its own, read back by the next run), and an empty file is
// refused rather than taken for the built-in text.
func TestRunCalibFile(t *testing.T) {
	clitest.IsolateStore(t)
	q8 := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	calib := filepath.Join(t.TempDir(), "calib.txt")
	if err := os.WriteFile(calib, []byte("In the beginning God created the heaven and the earth. And the earth was without form, and void."), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--model", q8, "--rank", "64", "--alloc", "mcr", "--calib", calib, "--prompt", "x", "-n", "1"}
	_, errb, err := runCmd(t, args...)
	if err != nil || !strings.Contains(errb, "MCR calibration: "+calib+", ") || !strings.Contains(errb, "built in") {
		t.Fatalf("run --calib: %v\n%s", err, errb)
	}
	files := cacheFiles(t)
	if len(files) != 1 || !strings.Contains(files[0], "-mcr-") {
		t.Fatalf("cache holds %v", files)
	}
	if _, errb, err = runCmd(t, args...); err != nil || !strings.Contains(errb, "(from the cache)") {
		t.Errorf("second run --calib: %v\n%s", err, errb)
	}
	// The built-in text is another calibration, so another file.
	builtin := append([]string{}, args[:7]...)
	builtin = append(builtin, "--prompt", "x", "-n", "1")
	if _, errb, err = runCmd(t, builtin...); err != nil || !strings.Contains(errb, "MCR calibration: the built-in calibration text") {
		t.Errorf("run without --calib: %v\n%s", err, errb)
	}
	if got := cacheFiles(t); len(got) != 2 {
		t.Errorf("cache holds %v, want two MCR files", got)
	}

	if err := os.WriteFile(calib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, args...); err == nil || !strings.Contains(err.Error(), "--calib: "+calib+" is empty") {
		t.Errorf("empty --calib file: %v", err)
	}
	if _, _, err := runCmd(t, "run", "--model", q8, "--rank", "64", "--calib", calib, "--prompt", "x", "-n", "1"); err == nil || err.Error() != "--calib is for --alloc mcr and --sink-bypass" {
		t.Errorf("--calib without mcr: %v", err)
	}
}
