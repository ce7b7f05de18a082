//go:build !unix

package miku

import (
	"context"
	"os"
	"time"
)

// staleAge is how long a temporary file must have gone unmodified before
// removeStale treats its writer as dead (no flock here).
const staleAge = 15 * time.Minute

// openNonblock is 0: readFile's open has no Unix FIFO to wait on here.
const openNonblock = 0

// renameOpen: Write closes its temporary file before renaming it (an open
// file cannot always be renamed here).
const renameOpen = false

// lockFile is a no-op where flock is not available.
func lockFile(*os.File) error { return nil }

// removeIfStale deletes the temporary file at name if it has not been
// modified for staleAge.
func removeIfStale(name string) {
	st, err := os.Stat(name)
	if err != nil || time.Since(st.ModTime()) < staleAge {
		return
	}
	os.Remove(name)
}

// acquire excludes nothing where flock is not available (see FileLock).
func acquire(context.Context, string) (*os.File, error) { return nil, nil }

// release has nothing to release without flock.
func release(*os.File, string) error { return nil }
