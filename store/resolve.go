package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/hub"
)

// ErrNoModel is wrapped by Resolve's errors when no model could be found.
var ErrNoModel = errors.New("no model")

// Resolve finds the model file to load. The value comes from the first of
// these that is set: flagValue (the --model flag), $ISAGI_MODEL, then the
// config file's "model". Sources after the first set one are not consulted.
//
// A value is either a path to a GGUF file, or the name of an installed model
// under p.Models: its file name with or without ".gguf", a short name
// such as "smollm2-135m-instruct" (see hub.ShortNames), or an
// "hf.co/ORG/REPO:FILE" reference that was pulled. Names match case
// insensitively when there is no exact match.
//
// When nothing is found the error (wrapping ErrNoModel) says which sources
// were tried and what to do: `isagi pull` or `--demo`. A value naming
// something that is neither a regular file nor a directory (a device such
// as /dev/zero, a FIFO) is an error of its own, saying what it is.
func (p Paths) Resolve(flagValue string) (string, error) {
	dir, err := p.modelsDir()
	if err != nil {
		return "", err
	}
	if flagValue != "" {
		return resolveValue(flagValue, "--model", dir)
	}
	if v := os.Getenv(EnvModel); v != "" {
		return resolveValue(v, "$"+EnvModel, dir)
	}
	cp, err := p.configPath()
	if err != nil {
		return "", err
	}
	cfg, err := loadConfig(cp)
	if err != nil {
		return "", err
	}
	if cfg.Model != "" {
		return resolveValue(cfg.Model, "the config file "+cp, dir)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "no model given: tried --model (not set), $%s (not set) and %q in %s (not set)", EnvModel, "model", cp)
	if names := installedNames(dir); len(names) > 0 {
		fmt.Fprintf(&b, "; installed in %s: %s — pick one with --model NAME", dir, strings.Join(names, ", "))
	} else {
		fmt.Fprintf(&b, "; no models are installed in %s — download one with `isagi pull %s`, or try the bundled demo model with `isagi --demo`", dir, hub.DefaultShortName)
	}
	return "", fmt.Errorf("%w: %s", ErrNoModel, b.String())
}

// resolveValue turns one model value into a file path.
func resolveValue(v, source, dir string) (string, error) {
	isDir := false
	if st, err := os.Stat(v); err == nil && st.IsDir() {
		// Not a model file — but a bare name that is also a directory
		// here (`--model demo` in ISAGI's source tree, which has demo/)
		// still names an installed model: look for one below.
		isDir = true
	} else if err == nil {
		// A device or a FIFO would be read (or waited on) forever. The
		// error does not wrap ErrNoModel: a model was named, wrongly.
		if err := regfile.Check(v); err != nil {
			return "", fmt.Errorf("%s: %w: give the path of a .gguf model file", source, err)
		}
		return v, nil
	}
	cands := candidates(v)
	var tried []string
	for _, c := range cands {
		tried = append(tried, c)
		if p, ok := findInDir(dir, c); ok {
			return p, nil
		}
	}
	msg := fmt.Sprintf("%s names model %q, which is not a file", source, v)
	if isDir {
		msg = fmt.Sprintf("%s names %s, which is a directory, not a GGUF file", source, v)
	}
	if len(tried) > 0 {
		msg += fmt.Sprintf(" nor an installed model (looked for %s in %s)", strings.Join(tried, ", "), dir)
	}
	if ref, ok := hub.Lookup(v); ok {
		msg += fmt.Sprintf("; %s is a known model (%s): download it with `isagi pull %s`", v, ref, v)
	} else {
		msg += fmt.Sprintf("; download a model with `isagi pull NAME` (e.g. %s), pass a GGUF file with --model /path/to/model.gguf, or try `isagi --demo`", hub.DefaultShortName)
	}
	return "", fmt.Errorf("%w: %s", ErrNoModel, msg)
}

// candidates are the file names under the models directory that value v may mean.
func candidates(v string) []string {
	var out []string
	add := func(s string) {
		if s == "" || strings.ContainsAny(s, `/\`) {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	if ref, ok := hub.Lookup(v); ok {
		add(ref.File)
	} else if ref, err := hub.ParseRef(v); err == nil && strings.HasSuffix(ref.File, ".gguf") {
		add(filepath.Base(ref.File))
	}
	add(v)
	if !strings.HasSuffix(strings.ToLower(v), ".gguf") {
		add(v + ".gguf")
	}
	return out
}

// findInDir finds the regular file name in dir, exactly or, failing that,
// case-insensitively.
func findInDir(dir, name string) (string, bool) {
	p := filepath.Join(dir, name)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p, true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range ents {
		if strings.EqualFold(e.Name(), name) {
			p := filepath.Join(dir, e.Name())
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, true
			}
		}
	}
	return "", false
}

// installedNames lists the complete .gguf files in dir.
func installedNames(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if isModelFile(e) {
			out = append(out, e.Name())
		}
	}
	return out
}

func isModelFile(e fs.DirEntry) bool {
	return !e.IsDir() && strings.HasSuffix(strings.ToLower(e.Name()), ".gguf") && !strings.HasPrefix(e.Name(), ".")
}
