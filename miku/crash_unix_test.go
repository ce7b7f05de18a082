//go:build unix

package miku

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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

// crashFile is generation gen of the file the crash test saves: 1–4 MB
// whose every word depends on gen, so a mix of two versions cannot pass.
// The payload repeats one 64 KB block, as filling it word by word is slow
// under -race.
func crashFile(gen uint64) *File {
	block := make([]byte, 64<<10)
	for i := 0; i < len(block); i += 8 {
		binary.LittleEndian.PutUint64(block[i:], gen*0x9E3779B97F4A7C15^uint64(i))
	}
	payload := bytes.Repeat(block, int(1+gen%4)*16)
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
// It builds each generation, says so on fd 3 ("ready N"), waits for a
// byte on stdin, saves it and reports the completed save ("done N"), so
// that the parent knows exactly when a save is under way and which have
// completed.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestCrashSafety")
	}
	report := os.NewFile(3, "report")
	die := func(err error) {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	f, err := Read(path)
	if err != nil {
		die(err)
	}
	gen := binary.LittleEndian.Uint64(f.Sections[0].Data)
	var go1 [1]byte
	for {
		gen++
		next := crashFile(gen)
		if _, err := fmt.Fprintln(report, "ready", gen); err != nil {
			die(err)
		}
		if _, err := io.ReadFull(os.Stdin, go1[:]); err != nil {
			die(err)
		}
		if err := Write(path, next); err != nil {
			die(err)
		}
		if _, err := fmt.Fprintln(report, "done", gen); err != nil {
			die(err)
		}
	}
}

// writer is a running TestHelperWriter.
type writer struct {
	cmd    *exec.Cmd
	out    bytes.Buffer
	goes   io.WriteCloser // one byte starts one save
	events <-chan event   // closed when the child dies
}

// event is one line of a child's report: generation gen is built and
// waits for its go (ready), or saved (done).
type event struct {
	done bool
	gen  uint64
}

// startWriter starts TestHelperWriter on path.
func startWriter(t *testing.T, path string) *writer {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	wr := &writer{cmd: exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")}
	wr.cmd.Env = append(os.Environ(), helperEnv+"="+path)
	wr.cmd.Stdout, wr.cmd.Stderr = &wr.out, &wr.out
	wr.cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	if wr.goes, err = wr.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := wr.cmd.Start(); err != nil {
		r.Close()
		w.Close()
		t.Fatal(err)
	}
	w.Close() // only the child writes: EOF comes when it dies
	events := make(chan event, 64)
	wr.events = events
	go func() {
		defer close(events)
		defer r.Close()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			what, num, _ := strings.Cut(sc.Text(), " ")
			g, err := strconv.ParseUint(num, 10, 64)
			if err != nil || (what != "ready" && what != "done") {
				return // the parent sees the channel close early and fails
			}
			events <- event{what == "done", g}
		}
	}()
	return wr
}

// TestCrashSafety kills a child process while it is saving: it lets the
// child complete 1–3 saves, timing the last, then starts one more and
// kills the child a random fraction of that time later. After every kill
// it checks that the file is a complete generation, no older than the
// last one the child reported complete and at most one newer (the save in
// flight may have renamed but not reported), and that at most one
// temporary file (the killed write's) is left. It goes on until 20 kills
// have landed inside a save (one that lands just after the save completed
// is checked too, but not counted). Nothing depends on how fast the
// machine is: a slow child only makes the test wait longer, up to a
// generous deadline per report that fails the test rather than hanging.
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
	const deadline = 60 * time.Second
	var last uint64
	midWrite, afterRename, completed := 0, 0, 0
	const kills, maxTries = 20, 200
	i := 0
	for ; i-completed < kills; i++ {
		if i == maxTries {
			t.Fatalf("%d of %d kills came after the save had completed: the kill timing does not work here", completed, i)
		}
		w := startWriter(t, path)
		fail := func(format string, args ...any) {
			t.Helper()
			w.cmd.Process.Signal(syscall.SIGKILL)
			w.cmd.Wait()
			t.Fatalf("kill %d: %s\nchild output:\n%s", i, fmt.Sprintf(format, args...), w.out.String())
		}
		next := func(done bool) uint64 {
			t.Helper()
			select {
			case e, ok := <-w.events:
				if !ok {
					fail("the child died or garbled its report")
				}
				if e.done != done {
					fail("unexpected report %+v", e)
				}
				return e.gen
			case <-time.After(deadline):
				fail("no report from the child in %v", deadline)
			}
			return 0
		}
		// start waits until the child has built its next generation and
		// starts saving it.
		start := func() (uint64, time.Time) {
			t.Helper()
			g := next(false)
			if _, err := w.goes.Write([]byte{1}); err != nil {
				fail("starting a save: %v", err)
			}
			return g, time.Now()
		}
		// Saves the child completes, one at a time, timing the last.
		var reported uint64
		var took time.Duration
		for range 1 + rng.IntN(3) {
			g, t0 := start()
			if got := next(true); got != g {
				fail("started %d, completed %d", g, got)
			}
			reported, took = g, time.Since(t0)
		}
		start()
		time.Sleep(time.Duration(rng.Float64() * float64(took)))
		if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := w.cmd.Wait()
		ws, ok := w.cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("kill %d: child was not killed (%v):\n%s", i, err, w.out.String())
		}
		// The last save may have completed and reported before the kill.
		for e := range w.events {
			if e.done {
				reported = e.gen
				completed++
			}
		}
		f, err := Read(path)
		if err != nil {
			t.Fatalf("kill %d: the file is not readable: %v", i, err)
		}
		gen := genOf(t, f)
		switch {
		case gen < reported:
			t.Fatalf("kill %d: the file holds generation %d, older than %d, which the child reported saved", i, gen, reported)
		case gen > reported+1:
			t.Fatalf("kill %d: the file holds generation %d, but the child had only started %d", i, gen, reported+1)
		case gen == reported+1:
			afterRename++
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
		midWrite += len(temps)
	}
	t.Logf("%d kills (last generation %d): %d during a save — %d before its temporary file existed, %d mid-write (a temporary file left), %d between the rename and the report — and %d just after a save completed",
		i, last, kills, kills-midWrite-afterRename, midWrite, afterRename, completed)
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
