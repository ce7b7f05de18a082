package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// TestHelpListsTheTable: the top-level help, generated from the command
// table, names every command and every subcommand of eval and session;
// eval's seven are named here too, so that a subcommand dropped from
// eval's own table is caught.
func TestHelpListsTheTable(t *testing.T) {
	var help bytes.Buffer
	printUsage(&help)
	out := help.String()
	var want []string
	for _, c := range Commands() {
		if c.Main == nil {
			t.Errorf("command %q has no Main", c.Name)
		}
		if c.Name == "" {
			continue
		}
		if len(c.Sub) == 0 {
			want = append(want, "isagi "+c.Name)
		}
		for _, s := range c.Sub {
			if s.Main == nil {
				t.Errorf("%s %s has no Main", c.Name, s.Name)
			}
			want = append(want, "isagi "+c.Name+" "+s.Name)
		}
	}
	for _, s := range []string{"teh", "snipe", "refusals", "cog", "ogd", "kv", "gtc", "overlap"} {
		want = append(want, "isagi eval "+s+" ")
	}
	want = append(want, "isagi session info ", "isagi session export ", "isagi [flags]", "isagi --demo", "-thermal-rank")
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("the help does not name %q:\n%s", w, out)
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"help", "help"}} {
		var o, e bytes.Buffer
		if err := Run(clitest.Env(&o, &e), args); err != nil || o.String() != out {
			t.Errorf("isagi %s: %v; it printed another help:\n%s", strings.Join(args, " "), err, o.String())
		}
	}
}

// TestEveryCommandRuns: every name in the table reaches its command (its
// help, printed without loading anything), and a name not in it is a
// usage error naming the ones that are.
func TestEveryCommandRuns(t *testing.T) {
	clitest.IsolateStore(t)
	for _, c := range Commands() {
		if c.Name == "" {
			continue
		}
		var o, e bytes.Buffer
		err := Run(clitest.Env(&o, &e), []string{c.Name, "--help"})
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("isagi %s --help: %v", c.Name, err)
		}
		if c.Name != "version" && !strings.Contains(o.String()+e.String(), "Usage") {
			t.Errorf("isagi %s --help printed no usage:\n%s%s", c.Name, o.String(), e.String())
		}
		for _, s := range c.Sub {
			o.Reset()
			e.Reset()
			err := Run(clitest.Env(&o, &e), []string{c.Name, s.Name, "--help"})
			if !errors.Is(err, flag.ErrHelp) || !strings.Contains(e.String(), "Usage: isagi "+c.Name) {
				t.Errorf("isagi %s %s --help: %v\n%s", c.Name, s.Name, err, e.String())
			}
		}
	}
	err := Run(clitest.Env(&bytes.Buffer{}, &bytes.Buffer{}), []string{"frobnicate"})
	if base.ExitCode(err) != 2 || !strings.Contains(err.Error(), `"frobnicate"`) || !strings.Contains(err.Error(), "pull, models, session, run") || !strings.Contains(err.Error(), `"isagi --help"`) {
		t.Errorf("unknown command: exit %d, %v", base.ExitCode(err), err)
	}
}

// TestUnknownSubcommand: a subcommand eval or session does not have is
// called unknown, by name, with the ones they have; none at all is said to
// be needed, with the same list.
func TestUnknownSubcommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "frobnicate"}, `unknown subcommand "frobnicate" of isagi eval: want teh, snipe, refusals, cog, ogd, kv, gtc, overlap or interchange`},
		{[]string{"session", "foo"}, `unknown subcommand "foo" of isagi session: want info or export`},
		{[]string{"eval"}, "eval needs a subcommand: teh, snipe, refusals, cog, ogd, kv, gtc, overlap or interchange"},
		{[]string{"session"}, "session needs a subcommand: info or export"},
		{[]string{"session", "--json"}, "session needs a subcommand: info or export"},
	} {
		err := Run(clitest.Env(&bytes.Buffer{}, &bytes.Buffer{}), c.args)
		if base.ExitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--help") {
			t.Errorf("isagi %s: exit %d, %v; want %q", strings.Join(c.args, " "), base.ExitCode(err), err, c.want)
		}
	}
}

// TestHelpHasNoFormatVerbs: no command's help shows a format's escapes
// ("0 %%" where "0 %" is meant): the heads and tails are printed as they
// are, not through Printf.
func TestHelpHasNoFormatVerbs(t *testing.T) {
	clitest.IsolateStore(t)
	check := func(args ...string) {
		var o, e bytes.Buffer
		Run(clitest.Env(&o, &e), args)
		if help := o.String() + e.String(); strings.Contains(help, "%%") || strings.Contains(help, "%!") {
			t.Errorf("isagi %s --help shows a format verb:\n%s", strings.Join(args[:len(args)-1], " "), help)
		}
	}
	for _, c := range Commands() {
		if c.Name == "" {
			check("--help")
			continue
		}
		check(c.Name, "--help")
		for _, s := range c.Sub {
			check(c.Name, s.Name, "--help")
		}
	}
}
