//go:build unix

package miku

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv carries the target path to TestHelperWriter in the child.
const helperEnv = "MIKU_TEST_HELPER_WRITER"

// crashFile is generation gen of the file the crash test saves: 4–8 MB
// whose every word depends on gen, so a mix of two versions cannot pass.
func crashFile(gen uint64) *File {
	n := (4 + gen%5) << 20
	payload := make([]byte, n)
	for i := 0; i+8 <= len(payload); i += 8 {
		binary.LittleEndian.PutUint64(payload[i:], gen*0x9E3779B97F4A7C15^uint64(i))
	}
	return &File{
		Header:   Header{AppVersion: strconv.FormatUint(gen, 10), Created: time.Unix(0, 0).UTC(), Updated: time.Unix(int64(gen), 0).UTC()},
		Sections: []Section{{Name: "gen", Data: binary.LittleEndian.AppendUint64(nil, gen)}, {Name: "payload", Required: true, Data: payload}},
	}
}

// genOf checks that f is exactly some generation and returns it.
func genOf(t *testing.T, f *File) uint64 {
	t.Helper()
	s, ok := f.Section("gen")
	if !ok || len(s.Data) != 8 {
		t.Fatalf("no gen section: %+v", f.Header.Sections)
	}
	gen := binary.LittleEndian.Uint64(s.Data)
	want := crashFile(gen)
	p, _ := f.Section("payload")
	if f.Header.AppVersion != want.Header.AppVersion || !bytes.Equal(p.Data, want.Sections[1].Data) {
		t.Fatalf("file claims generation %d but its content is not that generation's", gen)
	}
	return gen
}

// TestHelperWriter is the child process of TestCrashSafety: it saves ever
// newer generations of the file at $MIKU_TEST_HELPER_WRITER until killed.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestCrashSafety")
	}
	f, err := Read(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	gen := binary.LittleEndian.Uint64(f.Sections[0].Data)
	for {
		gen++
		if err := Write(path, crashFile(gen)); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(3)
		}
	}
}

// TestCrashSafety kills a child process that is saving in a loop, at
// random moments, and checks after every kill that the file is a complete
// generation, never older than the last one seen, and that at most one
// temporary file (the killed write's) is left.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "session.miku")
	if err := Write(path, crashFile(0)); err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("seed %d", seed)
	var last uint64
	advanced, interrupted := 0, 0
	const kills = 25
	for i := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+path)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(30+rng.IntN(270)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("kill %d: child was not killed (%v):\n%s", i, err, out.String())
		}
		f, err := Read(path)
		if err != nil {
			t.Fatalf("kill %d: the file is not readable: %v", i, err)
		}
		gen := genOf(t, f)
		if gen < last {
			t.Fatalf("kill %d: generation went back from %d to %d", i, last, gen)
		}
		if gen > last {
			advanced++
		}
		last = gen
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var temps []string
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".session.miku.tmp-") {
				temps = append(temps, e.Name())
			} else if e.Name() != "session.miku" {
				t.Fatalf("kill %d: unexpected file %s", i, e.Name())
			}
		}
		if len(temps) > 1 {
			t.Fatalf("kill %d: temporary files accumulate: %v", i, temps)
		}
		interrupted += len(temps)
	}
	t.Logf("%d kills: %d saw a newer generation (last %d), %d interrupted a save mid-write", kills, advanced, last, interrupted)
	if last == 0 {
		t.Fatal("the child never completed a save: the test exercised nothing")
	}
	// The next save cleans up what the last kill left.
	if err := Write(path, crashFile(last+1)); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d entries after a clean save", len(ents))
	}
}

// A temporary file whose writer is alive (holds the lock) is left alone.
func TestWriteSparesLiveTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.miku")
	live, err := createLocked(dir, "s.miku")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := Write(path, sample()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Fatalf("a live writer's temp file was removed: %v", err)
	}
	live.Close()
	if err := Write(path, sample()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(live.Name()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("unlocked temp file survived: %v", err)
	}
}

func TestWriteRemovesStaleTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.miku")
	stale := filepath.Join(dir, ".s.miku.tmp-12345")
	other := filepath.Join(dir, ".t.miku.tmp-12345")
	for _, p := range []string{stale, other} {
		if err := os.WriteFile(p, []byte("half a file"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(path, sample()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale temp file survived: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("another file's temp was removed: %v", err)
	}
}
