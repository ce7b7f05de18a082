package base

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/store"
)

// GeoFlags are the flags of the commands that use a geometry profile.
type GeoFlags struct {
	ModelFlags
	profile string
}

// Register registers the model, --threads, the device flags and --profile.
func (g *GeoFlags) Register(fs *flag.FlagSet) {
	g.RegisterThreads(fs)
	fs.StringVar(&g.profile, "profile", "", "geometry profile file (default: the data directory's, found by the model's sha256)")
}

// Open loads the model as a session (calibration tokenises prompts the way
// chat does). 512 positions hold any calibration prompt and an exploration
// step's output.
func (g *GeoFlags) Open() (*session.Session, error) {
	return g.OpenSession(session.Options{Ctx: 512, AppVersion: g.Version})
}

// ProfilePath is --profile, else the data directory's file for s's model.
func (g *GeoFlags) ProfilePath(s *session.Session) (string, error) {
	if g.profile != "" {
		return g.profile, nil
	}
	dir := g.StorePaths().Profiles
	if dir == "" {
		return "", fmt.Errorf("no data directory for profiles (pass --profile FILE): %w", g.pathsErr)
	}
	sum, err := s.Probe().SHA256()
	if err != nil {
		return "", err
	}
	return geometry.ProfilePath(dir, sum), nil
}

// LoadProfile reads the model's profile, saying how to make one if there
// is none.
func (g *GeoFlags) LoadProfile(s *session.Session) (*geometry.Profile, error) {
	path, err := g.ProfilePath(s)
	if err != nil {
		return nil, err
	}
	p, err := geometry.LoadProfile(path, -1)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no geometry profile for %s at %s: build one with `isagi calibrate%s`", s.Info().Name, path, g.modelArg())
	}
	if err != nil {
		return nil, err
	}
	sum, err := s.Probe().SHA256()
	if err != nil {
		return nil, err
	}
	if err := p.Check(sum); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func (g *GeoFlags) modelArg() string {
	if g.Demo {
		if g.Which == "chat" {
			return " --demo=chat"
		}
		return " --demo"
	}
	if g.Model != "" {
		return " --model " + g.Model
	}
	return ""
}

// ProgressLine draws calibration progress: one redrawn line on a
// terminal; in a log, a line per stage and at most one every two seconds.
func ProgressLine(w io.Writer) geometry.Progress {
	start := time.Now()
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	last, printed := "", time.Time{}
	return func(stage string, done, total int) {
		line := fmt.Sprintf("%-24s [%-30s] %d/%d  %s", stage, Bar(done, total, 30), done, total, time.Since(start).Round(100*time.Millisecond))
		switch {
		case tty:
			if stage != last && last != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprint(w, "\r"+line+" ")
		case stage != last || done == total || time.Since(printed) >= 2*time.Second:
			fmt.Fprintln(w, line)
			printed = time.Now()
		}
		last = stage
	}
}

// HeldoutSet is the shipped prompt sets, with the held-out pairs of dir
// (--set) when it is given.
func HeldoutSet(dir string) (*prompts.Set, error) {
	set, err := prompts.Default()
	if err != nil || dir == "" {
		return set, err
	}
	if err := set.UseHeldoutDir(dir); err != nil {
		return nil, err
	}
	return set, nil
}

// PrintJSON writes v as indented JSON, as every --json report is printed.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ParseChain reads --chain: the α of each step, comma-separated.
func ParseChain(chain string) ([]float64, error) {
	var alphas []float64
	for _, f := range strings.Split(chain, ",") {
		a, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, Usagef("--chain %q: %w", chain, err)
		}
		alphas = append(alphas, a)
	}
	return alphas, nil
}

// OpenProfiled opens the model (Open) and reads its profile
// (LoadProfile): what the evaluations of the profile start with. The
// caller closes the session.
func (g *GeoFlags) OpenProfiled() (*session.Session, *geometry.Profile, error) {
	s, err := g.Open()
	if err != nil {
		return nil, nil, err
	}
	p, err := g.LoadProfile(s)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, p, nil
}

// OpenExploring opens the model with its geometry profile running and
// replies of n tokens sampled at temp: what explore and eval ogd generate
// with. The caller closes the session.
func (g *GeoFlags) OpenExploring(n int, temp float64) (*session.Session, *geometry.Profile, error) {
	s, p, err := g.OpenProfiled()
	if err != nil {
		return nil, nil, err
	}
	err = s.Geometry().Set(p)
	for _, kv := range [][2]string{{"max_tokens", strconv.Itoa(n)}, {"temperature", strconv.FormatFloat(temp, 'g', -1, 64)}} {
		if err == nil {
			err = s.Set(kv[0], kv[1])
		}
	}
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, p, nil
}

// Bar draws done/total as a width-wide bar of '#'.
func Bar(done, total, width int) string {
	n := width * done / max(total, 1)
	b := make([]byte, n)
	for i := range b {
		b[i] = '#'
	}
	return string(b)
}

// HumanBytes is n bytes for a person (store.HumanBytes).
func HumanBytes(n uint64) string { return store.HumanBytes(int64(n)) }
