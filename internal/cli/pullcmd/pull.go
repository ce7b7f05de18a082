// Package pullcmd is `isagi pull`: download a GGUF model into the store.
package pullcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/progress"

	"github.com/isagi-lab/isagi/hub"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/store"
)

// Main is `isagi pull`: download a GGUF model into the store.
func Main(env base.Env, args []string) error {
	fs := env.FlagSet("pull", usageHead(), usageTail)
	setDefault := fs.Bool("default", false, "also make it the default model (writes \"model\" in the config file)")
	quiet := fs.Bool("quiet", false, "no progress output")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return base.ArgsError(fs, "pull needs exactly one model name, got %d arguments", fs.NArg())
	}
	name := fs.Arg(0)
	ref, err := hub.ParseRef(name)
	if err != nil {
		return err
	}
	paths, err := store.DefaultPaths()
	dir := paths.Models
	if dir == "" {
		return err
	}

	c := hub.NewClient()
	if ep := os.Getenv("HF_ENDPOINT"); ep != "" {
		c.BaseURL = ep
	}
	c.Token = os.Getenv("HF_TOKEN")
	c.UserAgent = "isagi/" + env.Version
	c.Retries = 3

	ctx, stop := base.Interruptible()
	defer stop()

	var bar *pullBar
	var report func(hub.Progress)
	if !*quiet {
		bar = newPullBar(env.Stderr)
		report = bar.update
		c.ProgressInterval = bar.interval
	}
	fmt.Fprintf(env.Stderr, "pulling %s\n", ref)
	res, err := c.Pull(ctx, ref, dir, report)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("pull interrupted; the partial download is kept in %s, and `isagi pull %s` resumes it", dir, name)
		}
		return err
	}

	// What to pass to --model: the short name if one was used, else the
	// file's name without .gguf (both resolve to the installed file).
	runName := strings.TrimSuffix(res.Ref.File[strings.LastIndex(res.Ref.File, "/")+1:], ".gguf")
	if _, ok := hub.Lookup(name); ok {
		runName = name
	}
	digest := "sha256"
	if res.SHA256 == "" {
		digest = "git blob id"
	}
	if res.AlreadyPresent {
		fmt.Fprintf(env.Stdout, "%s is already installed and verified (its %s matches the Hub's): %s (%s)\n", res.Ref.File, digest, res.Path, store.HumanBytes(res.Size))
	} else {
		if res.Mismatch != "" {
			fmt.Fprintf(env.Stdout, "the installed %s did not match the Hub's copy (%s), so it was downloaded again\n", res.Path, res.Mismatch)
		}
		fmt.Fprintf(env.Stdout, "saved %s (%s, %s verified)\n", res.Path, store.HumanBytes(res.Size), digest)
	}
	if *setDefault {
		cfg, err := paths.LoadConfig()
		if err != nil {
			return err
		}
		cfg.Model = runName
		if err := paths.SaveConfig(cfg); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "default model is now %s (%s)\n", runName, paths.Config)
	}
	fmt.Fprintf(env.Stdout, "\nRun it:\n  isagi --model %s\n  isagi run --model %s --chat --prompt \"Hello!\"\n", runName, runName)
	if !*setDefault {
		fmt.Fprintf(env.Stdout, "Make it the default (no --model needed):\n  isagi pull --default %s\n", name)
	}
	return nil
}

func modelsDirForHelp() string {
	if p, _ := store.DefaultPaths(); p.Models != "" {
		return p.Models
	}
	return "$XDG_DATA_HOME/isagi/models"
}

// pullBar draws download progress on stderr: a bubbles progress bar
// redrawn in place (at most 10 times a second) on a terminal, or a plain
// line per report (at most one a second, plus the last) otherwise.
type pullBar struct {
	w        io.Writer
	tty      bool
	width    int
	bar      progress.Model
	interval time.Duration
	lastLine time.Time
	drawn    bool
	file     string
	checking bool // the last report was of hashing the installed file
}

func newPullBar(w io.Writer) *pullBar {
	b := &pullBar{w: w, interval: 100 * time.Millisecond, width: 80}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			b.tty = true
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 40 {
		b.width = n
	}
	if !b.tty {
		b.interval = time.Second
	}
	b.bar = progress.New(progress.WithDefaultGradient(), progress.WithoutPercentage())
	return b
}

// status is "12.3 MiB / 145.0 MiB  4.5 MiB/s  ETA 27s", after "checking "
// while an installed file is hashed.
func pullStatus(p hub.Progress) string {
	var s strings.Builder
	if p.Checking {
		s.WriteString("checking ")
	}
	s.WriteString(store.HumanBytes(p.Done))
	if p.Total > 0 {
		fmt.Fprintf(&s, " / %s (%.0f%%)", store.HumanBytes(p.Total), 100*float64(p.Done)/float64(p.Total))
	}
	if p.Speed > 0 {
		fmt.Fprintf(&s, "  %s/s", store.HumanBytes(int64(p.Speed)))
	}
	if p.ETA > 0 {
		fmt.Fprintf(&s, "  ETA %s", p.ETA.Round(time.Second))
	}
	return s.String()
}

// update is the hub progress callback; hub calls it from one goroutine at a
// time.
func (b *pullBar) update(p hub.Progress) {
	status := pullStatus(p)
	if b.checking && !p.Checking {
		// A download after the check: the installed file did not match
		// (the digests are printed when the pull is done).
		if b.tty && b.drawn {
			fmt.Fprintln(b.w)
			b.drawn = false
		}
		fmt.Fprintf(b.w, "%s: the installed file does not match the Hub's copy; downloading it again\n", p.File)
	}
	b.checking = p.Checking
	if !b.tty {
		now := time.Now()
		if !p.Final && now.Sub(b.lastLine) < b.interval {
			return
		}
		b.lastLine = now
		fmt.Fprintf(b.w, "%s: %s\n", p.File, status)
		return
	}
	if b.file != p.File {
		b.file = p.File
		if b.drawn {
			fmt.Fprintln(b.w)
		}
		fmt.Fprintf(b.w, "%s\n", p.File)
	}
	frac := 0.0
	if p.Total > 0 {
		frac = float64(p.Done) / float64(p.Total)
	}
	b.bar.Width = max(10, min(50, b.width-len(status)-3))
	fmt.Fprintf(b.w, "\r%s  %s\x1b[K", b.bar.ViewAs(frac), status)
	b.drawn = true
}

// finish ends the bar's line.
func (b *pullBar) finish() {
	if b.tty && b.drawn {
		fmt.Fprintln(b.w)
	}
	b.drawn = false
}

// usageHead is the help of `isagi pull` before its flags: where models go
// and the short names.
func usageHead() string {
	var names strings.Builder
	for _, s := range hub.ShortNames() {
		fmt.Fprintf(&names, "  %-24s %s\n  %-24s   = %s\n", s.Name, s.About, "", s.Ref)
	}
	return fmt.Sprintf(`Usage: isagi pull [--default] MODEL

Downloads a GGUF model from the Hugging Face Hub into %s.
MODEL is a short name, or hf.co/ORG/REPO[:FILE] where FILE is a .gguf file
in the repository or a quantisation tag (Q4_K_M, Q8_0, …); without FILE a
Q4_K_M or Q8_0 file is chosen. An interrupted pull (network drop, ctrl+c)
resumes where it stopped when you run the same command again. The file is
checked against the sha256 the Hub publishes before it is put in place.
Gated repositories need a token in $HF_TOKEN; $HF_ENDPOINT overrides the
Hub's address (a mirror).

Short names:
%s
Flags:
`, modelsDirForHelp(), names.String())
}

// usageTail is the help of `isagi pull` after its flags.
const usageTail = `
Examples:
  isagi pull smollm2-135m-instruct
  isagi pull --default qwen2.5-0.5b-instruct
  isagi pull hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M
  isagi pull hf.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF:qwen2.5-0.5b-instruct-q4_k_m.gguf
`
