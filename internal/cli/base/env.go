package base

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"golang.org/x/term"

	"github.com/isagi-lab/isagi/internal/termtext"
)

// Env is what a command runs in: the binary's version and the process's
// standard streams, all of which a caller sets. Tests give a command
// buffers instead of the process's.
type Env struct {
	// Version is the binary's version, recorded in the files a command
	// writes (sessions, the GRC cache's entries, profiles).
	Version string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
}

// Main is a command's entry point: every command, and every subcommand of
// eval and session, has this signature. It returns flag.ErrHelp after
// printing a help the user asked for, a UsageError for a mistake in the
// command line (ExitCode words both), and any other error for a failure.
type Main func(env Env, args []string) error

// Command is one row of isagi's command table: what the top-level help
// lists and what the dispatcher runs.
type Command struct {
	// Name is what the user types after isagi ("run"); "" is the TUI,
	// isagi with no command.
	Name string
	// Args is the synopsis of the arguments in the help, after the name
	// ("--model M.gguf --prompt TEXT").
	Args string
	// Summary is the one line the help gives the command.
	Summary string
	// More are further ways to call the command, each a line of the
	// help (run --chat, the TUI's --demo).
	More []Form
	// Sub are the subcommands, for eval and session: the help lists each
	// of them instead of the command.
	Sub []Command
	// Main runs the command on the arguments after its name.
	Main Main
}

// Form is one more line of a command's help: its arguments and what that
// way of calling it does.
type Form struct{ Args, Summary string }

// Lookup is the command of cmds named name. The TUI's row, which has no
// name, is found by none: `isagi ""` is an unknown command.
func Lookup(cmds []Command, name string) (Command, bool) {
	for _, c := range cmds {
		if c.Name == name && name != "" {
			return c, true
		}
	}
	return Command{}, false
}

// FlagSet is a command's flag set as every command makes it: named as the
// user types the command after isagi ("eval teh"), writing to env.Stderr,
// leaving mistakes for ParseFlags to word, and with a help of head, the
// flags (flag.PrintDefaults), then tail.
func (env Env) FlagSet(name, head, tail string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), head)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), tail)
	}
	return fs
}

// Parse is ParseFlags for a subcommand, whose help goes to stderr (Go's
// flag convention).
func (env Env) Parse(fs *flag.FlagSet, args []string) error {
	return ParseFlags(fs, args, env.Stderr)
}

// Interruptible is a context that ctrl+c cancels, for a command's work:
// the command stops and reports what it has, instead of the process dying
// mid-write.
func Interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// Names lists the names of cmds as a sentence does: "teh, snipe or cog".
func Names(cmds []Command) string {
	var names []string
	for _, c := range cmds {
		if c.Name != "" {
			names = append(names, c.Name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// SubcommandError is the usage error of a command with subcommands (eval,
// session) whose args name none of subs: the one it does not have, or
// that one is needed, with the ones it has.
func SubcommandError(cmd string, subs []Command, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return Usagef("%s needs a subcommand: %s (see \"isagi %s --help\")", cmd, Names(subs), cmd)
	}
	return Usagef("unknown subcommand %q of isagi %s: want %s (see \"isagi %s --help\")", args[0], cmd, Names(subs), cmd)
}

// Screen is where a command writes text that comes from outside the
// program (a model's reply, a session file's messages) for the user to
// read: Stdout, cleaned of control characters when it is a terminal
// (termtext: a reply or a file must not retitle or clear the user's
// terminal), as it is otherwise — a pipe or a file gets the bytes
// exactly. flush writes what the cleaner holds back at the end.
func (e Env) Screen() (w io.Writer, flush func() error) {
	if f, ok := e.Stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		tw := termtext.NewWriter(f)
		return tw, tw.Flush
	}
	return e.Stdout, func() error { return nil }
}
