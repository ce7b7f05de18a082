package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/engine/session"
	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/hub"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/store"
	"github.com/isagi-lab/isagi/tui"
)

// cmdTUI is `isagi` with no subcommand: the chat interface.
func cmdTUI(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("isagi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var mf modelFlags
	fs.StringVar(&mf.model, "model", "", "GGUF file or installed model name (default $ISAGI_MODEL, then the config file)")
	fs.IntVar(&mf.threads, "threads", 0, "worker threads (default: the number of cores)")
	fs.IntVar(&mf.ctx, "ctx", 0, "context window in tokens (default: the model's, at most 4096)")
	useDemo := fs.Bool("demo", false, "start on the built-in demo model (a tiny KJV text generator, not an assistant)")
	load := fs.String("load", "", "resume a saved session (.miku); its model is found by name unless --model is given")
	force := fs.Bool("force-model", false, "with --load: load the conversation even if it was saved with another model")
	snipe := fs.String("snipe", "", "turn Snipe projectors on at start, e.g. privacy,toxicity (needs the model's geometry profile: isagi calibrate)")
	alpha := fs.String("ogd-alpha", "", "start with the Safe OGD exploration step at α (0.05–0.30; needs the geometry profile)")
	thermal := fs.String("thermal-rank", "", "MIN:MAX: let the GPU temperature pick the GRC rank between turns (65–85 °C maps MAX→MIN; no GPU: MAX)")
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("unknown command %q", fs.Arg(0))
	}
	opts := session.Options{Threads: mf.threads, Ctx: mf.ctx, AppVersion: version}
	if d, err := store.DataDir(); err == nil {
		opts.CacheDir = filepath.Join(d, "geometry")
		opts.ProfileDir = filepath.Join(d, "profiles")
	}
	if *load != "" && mf.model == "" && !*useDemo {
		// The session file names its model; find it unless told otherwise.
		f, err := miku.Read(*load)
		if err != nil {
			return err
		}
		if f.Header.Model.File == demo.Name || f.Header.Model.SHA256 == demoSHA256() {
			*useDemo = true
		} else if mf.model, err = store.Resolve(f.Header.Model.File); err != nil {
			return fmt.Errorf("%s was saved with %s, which is not installed: pass --model PATH (and --force-model for a different model): %w", *load, f.Header.Model.File, err)
		}
	}

	var s *session.Session
	var err error
	if *useDemo {
		opts.Demo = true
		s, err = session.OpenBytes(demo.Name, demo.Model, opts)
	} else {
		var path string
		path, err = store.Resolve(mf.model)
		if errors.Is(err, store.ErrNoModel) && mf.model == "" {
			path, opts.Demo, err = firstStart(stdout, stderr)
		}
		if err != nil {
			return err
		}
		if opts.Demo {
			s, err = session.OpenBytes(demo.Name, demo.Model, opts)
		} else {
			s, err = session.Open(path, opts)
		}
	}
	if err != nil {
		return err
	}
	defer s.Close()
	if *load != "" {
		notes, err := s.Load(*load, *force)
		if err != nil {
			return err
		}
		for _, n := range notes {
			fmt.Fprintln(stderr, "isagi:", n)
		}
	}
	var notes []string
	if _, err := s.LoadGeometry(); err != nil {
		notes = append(notes, "geometry profile not loaded: "+err.Error())
	}
	if *snipe != "" {
		if err := s.Set("snipe", *snipe); err != nil {
			return fmt.Errorf("--snipe: %w", err)
		}
	}
	if *alpha != "" {
		if err := s.Set("ogd_alpha", *alpha); err != nil {
			return fmt.Errorf("--ogd-alpha: %w", err)
		}
	}
	notes = append(notes, s.Notes()...)
	sessionDir := ""
	if d, err := store.DataDir(); err == nil {
		sessionDir = filepath.Join(d, "sessions")
		if err := os.MkdirAll(sessionDir, 0o755); err != nil {
			sessionDir = ""
		}
	}

	var tel gpu.Source
	if n, err := gpu.NewNVML(); err == nil {
		defer n.Close()
		tel = n
	}
	var th *gpu.ThermalRank
	if *thermal != "" {
		var lo, hi int
		if _, err := fmt.Sscanf(*thermal, "%d:%d", &lo, &hi); err != nil {
			return fmt.Errorf("--thermal-rank %q: want MIN:MAX, e.g. 128:512", *thermal)
		}
		if th, err = gpu.NewThermalRank(gpu.ThermalConfig{RMin: lo, RMax: hi}, tel); err != nil {
			return err
		}
	}
	return tui.Run(s, tui.Options{Telemetry: tel, Version: version, SessionDir: sessionDir, Thermal: th, Notes: notes})
}

// firstStart runs when no model is installed: it offers to pull a small
// assistant model or to try the demo model now.
func firstStart(stdout, stderr io.Writer) (path string, useDemo bool, err error) {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return "", false, fmt.Errorf("no model installed: run `isagi pull %s`, pass --model FILE.gguf, or try `isagi --demo`", hub.DefaultShortName)
	}
	fmt.Fprintf(stdout, `No model is installed yet. Choose:
  1  pull %s (a small assistant, about 145 MB, from the Hugging Face Hub)
  2  try the built-in demo model now (a tiny KJV text generator, not an assistant)
  q  quit
> `, hub.DefaultShortName)
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	switch strings.TrimSpace(line) {
	case "1":
		if err := cmdPull([]string{hub.DefaultShortName}, stdout, stderr); err != nil {
			return "", false, err
		}
		path, err := store.Resolve(hub.DefaultShortName)
		return path, false, err
	case "2":
		return "", true, nil
	}
	return "", false, errors.New("no model chosen")
}

// demoSHA256 identifies the embedded model in session files.
func demoSHA256() string {
	sum := sha256.Sum256(demo.Model)
	return hex.EncodeToString(sum[:])
}
