package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/hub"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/pullcmd"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/store"
	"github.com/isagi-lab/isagi/tui"
)

// tuiFlags are the flags of `isagi` with no subcommand. They are
// registered in one place so that the top-level help lists exactly these.
type tuiFlags struct {
	mf                    base.ModelFlags
	load                  string
	force, noAutosave     bool
	snipe, alpha, thermal string
}

func (t *tuiFlags) register(fs *flag.FlagSet) {
	t.mf.RegisterModel(fs)
	fs.StringVar(&t.load, "load", "", "resume a saved session (.miku); its model is found by name unless --model is given")
	fs.BoolVar(&t.force, "force-model", false, "with --load: load the conversation even if it was saved with another model")
	fs.BoolVar(&t.noAutosave, "no-autosave", false, "a new conversation does not save itself to the data directory's sessions/ (/save still does)")
	fs.StringVar(&t.snipe, "snipe", "", "turn Snipe projectors on at start, e.g. privacy,toxicity (needs the model's geometry profile: isagi calibrate)")
	fs.StringVar(&t.alpha, "ogd-alpha", "", "start with the Safe OGD exploration step at α (0.05–0.30; needs the geometry profile)")
	fs.StringVar(&t.thermal, "thermal-rank", "", "MIN:MAX: let the GPU temperature pick the GRC rank between turns (65–85 °C maps MAX→MIN; no GPU: MAX)")
	t.mf.KV.Register(fs)
	t.mf.Steer.Register(fs)
}

// cmdTUI is `isagi` with no command: the chat interface. Its help is the
// top-level help, printed to stdout.
func cmdTUI(env base.Env, args []string) error {
	fs := flag.NewFlagSet("isagi", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	tf := tuiFlags{mf: base.ModelFlags{Version: env.Version}}
	tf.register(fs)
	defer tf.mf.Dev.Close()
	fs.Usage = func() { printUsage(fs.Output()) }
	if err := base.ParseFlags(fs, args, env.Stdout); err != nil {
		return err
	}
	rest := fs.Args()
	if tf.mf.Demo && tf.mf.Which == "kjv" && len(rest) == 1 {
		// `isagi --demo chat` reads as the user means it: a bare --demo
		// cannot take a value after a space, so the word that follows
		// names the demo.
		if _, _, ok := demo.Lookup(rest[0]); ok {
			tf.mf.Which, rest = rest[0], nil
		}
	}
	if len(rest) != 0 {
		return unknownCommand(rest[0])
	}
	mf, useDemo, load, force := &tf.mf, &tf.mf.Demo, &tf.load, &tf.force
	snipe, alpha, thermal := &tf.snipe, &tf.alpha, &tf.thermal
	if err := mf.CheckSource(); err != nil {
		return err
	}
	if err := mf.KV.Check(); err != nil {
		return err
	}
	if err := mf.Steer.Check(); err != nil {
		return err
	}
	kvSet := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { kvSet[f.Name] = true })
	opts := mf.SessionOptions(session.Options{AppVersion: env.Version})
	if *load != "" && mf.Model == "" && !*useDemo {
		// The session file names its model; find it unless told otherwise.
		f, err := miku.Read(*load)
		if err != nil {
			return err
		}
		if which := savedDemo(f.Header.Model.File, f.Header.Model.SHA256); which != "" {
			*useDemo, mf.Which = true, which
		} else if mf.Model, err = mf.StorePaths().Resolve(f.Header.Model.File); err != nil {
			return fmt.Errorf("%s was saved with %s, which is not installed: pass --model PATH (and --force-model for a different model): %w", *load, f.Header.Model.File, err)
		}
	}

	if !*useDemo && mf.Model == "" {
		// Nothing on the command line: $ISAGI_MODEL or the config file may
		// name a model; when nothing does, the first-start menu asks.
		if _, err := mf.StorePaths().Resolve(""); errors.Is(err, store.ErrNoModel) {
			path, wantDemo, err := firstStart(env, mf.StorePaths())
			if errors.Is(err, errQuit) {
				return nil
			}
			if err != nil {
				return err
			}
			mf.Model, mf.Demo, mf.Which = path, wantDemo, "kjv"
		}
	}
	s, err := mf.OpenSession(opts)
	if err != nil {
		return err
	}
	defer s.Close()
	if *load != "" {
		notes, err := s.Files().Load(context.Background(), *load, session.LoadOptions{Force: *force})
		if err != nil {
			return err
		}
		for _, n := range notes {
			fmt.Fprintln(env.Stderr, "isagi:", n)
		}
	}
	var notes []string
	if _, err := s.Geometry().Load(); err != nil {
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
	if mf.Steer.Given() {
		if err := s.Set("steer", mf.Steer.Spec()); err != nil {
			return fmt.Errorf("--control-vector: %w", err)
		}
	}
	for _, kv := range mf.KV.Knobs() {
		// Given flags win over a loaded session's settings.
		if name := strings.ReplaceAll(kv[0], "_", "-"); kvSet[name] {
			if err := s.Set(kv[0], kv[1]); err != nil {
				return fmt.Errorf("--%s: %w", name, err)
			}
		}
	}
	notes = append(notes, s.Notes()...)
	sessionDir := mf.StorePaths().Sessions
	if sessionDir != "" {
		if err := os.MkdirAll(sessionDir, 0o755); err != nil {
			sessionDir = "" // the TUI then saves in the working directory
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
			return base.Usagef("--thermal-rank %q: want MIN:MAX, e.g. 128:512", *thermal)
		}
		if th, err = gpu.NewThermalRank(gpu.ThermalConfig{RMin: lo, RMax: hi}, tel); err != nil {
			return err
		}
	}
	return tui.Run(s, tui.Options{Telemetry: tel, Compute: computeLabel(s.Info(), mf.Dev.Describe(s.Probe().Layers())), Version: env.Version, SessionDir: sessionDir, NoAutosave: tf.noAutosave, Thermal: th, Notes: notes})
}

// computeLabel names the device that runs the model for the Hardware pane:
// the session's backend when it names one, else the CPU kernels and
// threads it reports. note (base.DeviceFlags.Describe) follows on the next
// lines: when the GPU was passed over, why in a few words ("no CUDA GPU
// found"); with --rpc, each server's layers and memory, a line each.
func computeLabel(i session.Info, note string) string {
	var l string
	switch {
	case i.Backend != "":
		l = i.Backend
	case i.Threads > 0:
		l = fmt.Sprintf("cpu %s × %d threads", i.Kernels, i.Threads)
	default:
		l = "cpu " + i.Kernels
	}
	if note != "" {
		l += "\n" + strings.TrimPrefix(note, "CPU: ") // the pane's second line
	}
	return l
}

// firstStart runs when no model is installed: it offers to pull a small
// assistant model or to try the demo model now. The pulled model is found
// in paths.
func firstStart(env base.Env, paths store.Paths) (path string, useDemo bool, err error) {
	// The menu asks a person: with no terminal to ask on (a script, a
	// pipe), say what to run instead.
	if f, ok := env.Stdin.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return "", false, fmt.Errorf("no model installed: run `isagi pull %s`, pass --model FILE.gguf, or try `isagi --demo` (or `isagi --demo=chat`)", hub.DefaultShortName)
	}
	pull := func() (string, error) {
		if err := pullcmd.Main(env, []string{hub.DefaultShortName}); err != nil {
			return "", err
		}
		return paths.Resolve(hub.DefaultShortName)
	}
	return firstStartMenu(env.Stdin, env.Stdout, pull, usableModels(paths))
}

// usableModels are the installed models that can be opened: complete
// downloads whose header was read. A listing error counts as none.
func usableModels(paths store.Paths) []store.Model {
	all, err := paths.List()
	if err != nil {
		return nil
	}
	var ok []store.Model
	for _, m := range all {
		if !m.Incomplete && m.Err == "" {
			ok = append(ok, m)
		}
	}
	return ok
}

// errQuit is the first-start menu's "q": the user chose to leave, which is
// no failure (cmdTUI exits 0 for it).
var errQuit = errors.New("no model chosen")

// firstStartMenu is firstStart's dialogue over in and out; pull downloads
// the default model and returns its path. An answer it does not know is
// asked again rather than taken as "quit"; a failed download (offline, a
// Hub outage) offers the demo model, which needs no network, instead of
// ending the program. It ends with an error only when the user quits,
// declines the demo after a failed download, or the input ends.
//
// When models are installed but none is the default (as after `isagi pull
// X` without --default), the menu offers them first, numbered from 1, and
// the pull and the demo come after them.
func firstStartMenu(in io.Reader, out io.Writer, pull func() (string, error), installed []store.Model) (path string, useDemo bool, err error) {
	r := bufio.NewReader(in)
	pullKey, demoKey := "1", "2"
	if len(installed) == 0 {
		fmt.Fprint(out, "No model is installed yet. Choose:\n")
	} else {
		fmt.Fprintf(out, "%d installed %s, none of them the default (isagi pull NAME --default makes one the default). Choose:\n",
			len(installed), plural(len(installed), "model", "models"))
		for i, m := range installed {
			fmt.Fprintf(out, "  %d  %s (%s %s)\n", i+1, m.Name, m.Arch, m.Quant)
		}
		pullKey, demoKey = strconv.Itoa(len(installed)+1), strconv.Itoa(len(installed)+2)
	}
	fmt.Fprintf(out, `  %s  pull %s (a small assistant, about 145 MB, from the Hugging Face Hub)
  %s  try the built-in demo model now (a tiny KJV text generator, not an assistant)
  q  quit
(isagi --demo=chat starts the other built-in demo: a tiny chat model that refuses harmful requests.)
`, pullKey, hub.DefaultShortName, demoKey)
	for {
		fmt.Fprint(out, "> ")
		answer, err := readAnswer(r)
		if err != nil {
			return "", false, err
		}
		if k, err := strconv.Atoi(answer); err == nil && k >= 1 && k <= len(installed) {
			return installed[k-1].Path, false, nil
		}
		switch answer {
		case pullKey:
			path, err := pull()
			if err == nil {
				return path, false, nil
			}
			fmt.Fprintf(out, "The download failed: %v\n", err)
			if yes, aerr := askYesNo(r, out, "Try the built-in demo model instead? [Y/n] "); aerr != nil || !yes {
				return "", false, err
			}
			return "", true, nil
		case demoKey:
			return "", true, nil
		case "q", "quit":
			return "", false, errQuit
		}
		fmt.Fprintf(out, "%q is not one of the choices: type a number from 1 to %s, or q.\n", answer, demoKey)
	}
}

// askYesNo asks question until the answer is yes (or empty, the default)
// or no.
func askYesNo(r *bufio.Reader, out io.Writer, question string) (bool, error) {
	for {
		fmt.Fprint(out, question)
		answer, err := readAnswer(r)
		if err != nil {
			return false, err
		}
		switch answer {
		case "", "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		fmt.Fprintf(out, "%q: type y or n.\n", answer)
	}
}

// readAnswer reads one line, trimmed and lower-cased. The end of the input
// with nothing typed is an error: there is no one left to ask.
func readAnswer(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
		return "", fmt.Errorf("no model chosen: the input ended (%w)", err)
	}
	return strings.ToLower(strings.TrimSpace(line)), nil
}

// savedDemo is the demo model a session file was saved with, by name or
// hash ("kjv", "chat"), or "".
func savedDemo(file, sha string) string {
	for _, which := range demo.Names() {
		name, b, _ := demo.Lookup(which)
		if file == name || sha == base.BytesSHA256(b) {
			return which
		}
	}
	return ""
}

// plural picks the word for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
