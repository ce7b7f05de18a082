// Package store knows where ISAGI keeps its files and which models are
// installed: the data and config layout under the XDG directories (Paths),
// the config file, model resolution (--model flag, $ISAGI_MODEL, config
// file) and the list of installed GGUF models.
//
// The package holds no mutable state: DefaultPaths reads the environment
// when it is called, so tests (and callers) steer it with environment
// variables such as XDG_DATA_HOME and XDG_CONFIG_HOME, or build a Paths of
// their own with NewPaths.
package store

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/isagi-lab/isagi/hub"
)

// App is the directory name used under the XDG base directories.
const App = "isagi"

// EnvModel is the environment variable that names the model when no --model
// flag is given.
const EnvModel = "ISAGI_MODEL"

// PartSuffix marks a download in progress (see package hub).
const PartSuffix = hub.PartSuffix

// WriteFileAtomic writes data to path so that readers see either the old
// file or the complete new one: it writes a temporary file in the same
// directory, syncs it, renames it over path and syncs the directory. The
// directory is created if needed.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a directory so that a rename inside it is durable. File
// systems that cannot sync directories are not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}
