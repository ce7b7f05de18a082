//go:build unix

package miku

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestLockExcludes: while a FileLock is held, another Lock on the same
// path (another open file description, as in another process) waits and
// gives up with ErrLocked, WriteIfUnchanged too; the holder itself writes
// through its FileLock without deadlocking; Unlock frees the path at once
// and removes the lock file; a plain Write never removes a held lock file.
func TestLockExcludes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.miku")
	l, err := Lock(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(dir, ".s.miku.lock")
	if _, err := os.Stat(lockPath); err != nil {
		t.Fatalf("no lock file: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, path); !errors.Is(err, ErrLocked) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second Lock: %v", err)
	}
	st, err := l.WriteIfUnchanged(sample(), Stamp{})
	if err != nil {
		t.Fatalf("the holder's write: %v", err)
	}
	start := time.Now()
	if _, err := WriteIfUnchanged(path, sample(), st); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "in use by another process (still locked after") {
		t.Fatalf("WriteIfUnchanged while locked: %v", err)
	}
	if d := time.Since(start); d < LockWait {
		t.Fatalf("gave up after %v", d)
	}
	// Plain writes, which clean up temporary files, leave the lock alone;
	// so do those of a file whose temp prefix the lock's name shares.
	lo, err := Lock(context.Background(), filepath.Join(dir, "s.miku.tmp-1"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := Write(path, sample()); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{".s.miku.lock", ".s.miku.tmp-1.lock"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("a Write removed the held lock file %s: %v", name, err)
		}
	}
	if err := lo.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatalf("second Unlock: %v", err)
	}
	if _, err := l.Write(sample()); err == nil {
		t.Fatal("Write through a released lock")
	}
	if _, err := os.Stat(lockPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file left after Unlock: %v", err)
	}
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	l2, err := Lock(done, path) // a try-lock: free now
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	l2.Unlock()
}

// lockHelperEnv carries the path to TestHelperLocker in the child.
const lockHelperEnv = "MIKU_TEST_HELPER_LOCKER"

// TestHelperLocker is the child process of TestLockAcrossProcesses: it
// takes the lock of $MIKU_TEST_HELPER_LOCKER, says "locked" and sleeps
// until killed.
func TestHelperLocker(t *testing.T) {
	path := os.Getenv(lockHelperEnv)
	if path == "" {
		t.Skip("helper process for TestLockAcrossProcesses")
	}
	if _, err := Lock(context.Background(), path); err != nil {
		os.Stdout.WriteString(err.Error() + "\n")
		os.Exit(3)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(time.Hour)
}

// TestLockAcrossProcesses: a lock held by another process excludes this
// one, and a holder killed outright frees the path (the kernel drops its
// flock; the lock file it leaves is reused).
func TestLockAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	path := filepath.Join(t.TempDir(), "s.miku")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLocker$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		if s != "locked\n" {
			t.Fatalf("child: %q", s)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the child did not take the lock in 60 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, path); !errors.Is(err, ErrLocked) {
		t.Fatalf("Lock while another process holds it: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := Lock(ctx, path)
	if err != nil {
		t.Fatalf("Lock after the holder died: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
}

// counterFile is a file holding a counter, for the lost-update tests.
func counterFile(n uint64) *File {
	return &File{Sections: []Section{{Name: "n", Data: binary.LittleEndian.AppendUint64(nil, n)}}}
}

func counterOf(t *testing.T, f *File) uint64 {
	t.Helper()
	s, ok := f.Section("n")
	if !ok || len(s.Data) != 8 {
		t.Fatalf("no counter: %+v", f.Header.Sections)
	}
	return binary.LittleEndian.Uint64(s.Data)
}

// TestLockNoLostUpdates: concurrent read → change → save cycles on one
// file lose nothing, whether each cycle holds the lock throughout (isagi
// run --session) or reads unlocked and retries when WriteIfUnchanged
// refuses (the TUI's way, minus the retry, which is the user's call).
func TestLockNoLostUpdates(t *testing.T) {
	const workers, rounds = 4, 10
	for _, mode := range []string{"held", "retry"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.miku")
			if err := Write(path, counterFile(0)); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for range workers {
				wg.Go(func() {
					for range rounds {
						if err := increment(path, mode == "held"); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			f, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if n := counterOf(t, f); n != workers*rounds {
				t.Fatalf("counter %d after %d increments", n, workers*rounds)
			}
		})
	}
}

// increment adds one to the counter in path's file.
func increment(path string, hold bool) error {
	for {
		var l *FileLock
		if hold {
			var err error
			if l, err = Lock(context.Background(), path); err != nil {
				return err
			}
		}
		f, st, err := ReadStamped(path)
		if err != nil {
			return err
		}
		s, _ := f.Section("n")
		next := counterFile(binary.LittleEndian.Uint64(s.Data) + 1)
		if hold {
			_, err = l.WriteIfUnchanged(next, st)
			if uerr := l.Unlock(); err == nil {
				err = uerr
			}
			return err
		}
		_, err = WriteIfUnchanged(path, next, st)
		if !errors.Is(err, ErrChanged) {
			return err
		}
	}
}

// TestLockUnwritableFolder: a folder that takes no new files (/proc) is
// named in the refusal, and the hidden lock file's name is not.
func TestLockUnwritableFolder(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc on this system")
	}
	_, err := Lock(context.Background(), "/proc/foo.miku")
	if err == nil {
		t.Fatal("Lock in /proc succeeded")
	}
	msg := err.Error()
	if strings.Contains(msg, ".lock") || !strings.Contains(msg, "the folder /proc does not take new files") {
		t.Errorf("got %q, want the folder named and no lock file", msg)
	}
	// A folder that is not there is said to be missing.
	missing := filepath.Join(t.TempDir(), "gone", "foo.miku")
	if _, err := Lock(context.Background(), missing); err == nil || !strings.Contains(err.Error(), "the folder "+filepath.Dir(missing)+" does not exist") {
		t.Errorf("Lock in a missing folder: %v", err)
	}
}
