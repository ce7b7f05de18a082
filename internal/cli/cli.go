// Package cli is isagi's command line: the command table, the dispatcher
// that runs a command from it, the top-level help generated from it, and
// the TUI, which is isagi with no command (its flags are the top-level
// flags, and its help the top-level help). Each command lives in its own
// package, internal/cli/<command>, as Go's own cmd/go/internal/…; what
// they share is in internal/cli/base.
package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/bench"
	"github.com/isagi-lab/isagi/internal/cli/calibrate"
	"github.com/isagi-lab/isagi/internal/cli/evalcmd"
	"github.com/isagi-lab/isagi/internal/cli/explore"
	"github.com/isagi-lab/isagi/internal/cli/inspect"
	"github.com/isagi-lab/isagi/internal/cli/models"
	"github.com/isagi-lab/isagi/internal/cli/ppl"
	"github.com/isagi-lab/isagi/internal/cli/pullcmd"
	"github.com/isagi-lab/isagi/internal/cli/runcmd"
	"github.com/isagi-lab/isagi/internal/cli/servecmd"
	"github.com/isagi-lab/isagi/internal/cli/sessioncmd"
	"github.com/isagi-lab/isagi/internal/cli/steercmd"
	"github.com/isagi-lab/isagi/internal/cli/tokenize"
)

// Commands is isagi's command table, in the order the help lists it. The
// first row, without a name, is the TUI. A new command is a row here: the
// dispatcher and the help both read this table, so neither can leave it
// out.
func Commands() []base.Command {
	return []base.Command{
		{Args: "[flags]", Summary: "chat in the terminal (the TUI); flags below", Main: cmdTUI, More: []base.Form{
			{Args: "--demo", Summary: "chat with the built-in demo model"},
			{Args: "--load s.miku", Summary: "resume a saved session (ctrl+s or /save in the TUI)"},
		}},
		{Name: "pull", Args: "MODEL", Summary: "download a GGUF model (hf.co/ORG/REPO[:FILE] or a short name)", Main: pullcmd.Main},
		{Name: "models", Summary: "list installed models", Main: models.Main},
		{Name: "session", Summary: "a saved session, read without a model", Sub: sessioncmd.Subcommands(), Main: sessioncmd.Main},
		{Name: "run", Args: "--model M.gguf --prompt TEXT", Summary: "stream a continuation to stdout", Main: runcmd.Main, More: []base.Form{
			{Args: "--model M.gguf --chat --prompt TEXT", Summary: "chat: one user turn, templated"},
		}},
		{Name: "bench", Args: "--model M.gguf [--json]", Summary: "prefill/decode speed vs memory bandwidth", Main: bench.Main},
		{Name: "tokenize", Args: "--model M.gguf TEXT", Summary: "token ids of TEXT (--decode: ids to text)", Main: tokenize.Main},
		{Name: "ppl", Args: "--model M.gguf --file T.txt", Summary: "perplexity of the model over a text", Main: ppl.Main},
		{Name: "calibrate", Args: "--model M.gguf", Summary: "build the model's geometry profile (TEH gauges, Snipe projectors)", Main: calibrate.Main},
		{Name: "eval", Summary: "the profile, the memory, Safe OGD and KV eviction measured", Sub: evalcmd.Subcommands(), Main: evalcmd.Main},
		{Name: "steer", Summary: "control vectors in llama.cpp's format: make and show", Sub: steercmd.Subcommands(), Main: steercmd.Main},
		{Name: "explore", Args: `--chain 0.2,0.1,0.05 "seed concept"`, Summary: "Safe OGD exploration chain, with TEH and creativity", Main: explore.Main},
		{Name: "serve", Args: "--model M.gguf [--port N]", Summary: "OpenAI-compatible server with ISAGI's extensions (docs/serve.md)", Main: servecmd.Main},
		{Name: "inspect", Args: "[--tensors] M.gguf", Summary: "show a GGUF file's metadata and tensors", Main: inspect.Main},
		{Name: "version", Summary: "print the version", Main: cmdVersion},
		{Name: "help", Args: "[COMMAND]", Summary: "the commands, or one command's flags", Main: cmdHelp},
	}
}

// Run runs the command args name (args without the program's name): the
// TUI when there is none, or when args start with a flag other than a
// help or version request.
func Run(env base.Env, args []string) error {
	if len(args) == 0 || (strings.HasPrefix(args[0], "-") && !base.IsHelp(args[0]) && args[0] != "--version") {
		return cmdTUI(env, args)
	}
	switch {
	case args[0] == "--version":
		return cmdVersion(env, args[1:])
	case base.IsHelp(args[0]):
		printUsage(env.Stdout)
		return nil
	}
	if c, ok := base.Lookup(Commands(), args[0]); ok {
		return c.Main(env, args[1:])
	}
	return unknownCommand(args[0])
}

// cmdVersion is `isagi version` (and --version).
func cmdVersion(env base.Env, _ []string) error {
	fmt.Fprintln(env.Stdout, "isagi", env.Version)
	return nil
}

// cmdHelp is `isagi help [COMMAND]`: "isagi help run" is "isagi run
// --help".
func cmdHelp(env base.Env, args []string) error {
	if len(args) > 0 && args[0] != "help" && !strings.HasPrefix(args[0], "-") {
		return Run(env, []string{args[0], "--help"})
	}
	printUsage(env.Stdout)
	return nil
}

// unknownCommand is the usage error for a command isagi does not have,
// naming the ones it has.
func unknownCommand(name string) error {
	return base.Usagef("unknown command %q: want %s (see \"isagi --help\")", name, base.Names(Commands()))
}

// usageHead and usageTail frame the top-level help; the commands (from the
// table) and the TUI's flags (from the flag set itself, so the list cannot
// drift from what cmdTUI accepts) go between them.
const (
	usageHead = `isagi — a terminal workstation for living language models

Usage:
`
	usageMiddle = `
Every command that loads a model takes --model M (a file or an installed
name) or --demo (the built-in demo model). Run "isagi COMMAND --help" (or
"isagi help COMMAND") for a command's flags and examples.

Flags of the TUI (isagi [flags]):
`
	usageTail = `
Examples:
  isagi --demo
  isagi pull smollm2-135m-instruct && isagi --model smollm2-135m-instruct
  isagi run --demo --prompt "And God said" -n 40
  isagi run --model kjv-f32.gguf --prompt-ids 1,300,391,394 --temp 0 --ids
  isagi bench --demo
  isagi inspect --tensors model.gguf | less
`
)

// printUsage writes the top-level help to w.
func printUsage(w io.Writer) {
	fmt.Fprint(w, usageHead)
	printCommands(w, Commands())
	fmt.Fprint(w, usageMiddle)
	fs := flag.NewFlagSet("isagi", flag.ContinueOnError)
	var tf tuiFlags
	tf.register(fs)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, usageTail)
}

// printCommands writes a line of the help for each way of calling each
// command of cmds, and for each subcommand of eval and session, with the
// summaries in one column where the synopsis leaves room.
func printCommands(w io.Writer, cmds []base.Command) {
	line := func(synopsis, summary string) {
		fmt.Fprintf(w, "  %-38s   %s\n", synopsis, summary)
	}
	join := func(parts ...string) string {
		var s []string
		for _, p := range parts {
			if p != "" {
				s = append(s, p)
			}
		}
		return strings.Join(s, " ")
	}
	for _, c := range cmds {
		if len(c.Sub) > 0 {
			for _, sub := range c.Sub {
				line(join("isagi", c.Name, sub.Name, sub.Args), sub.Summary)
			}
			continue
		}
		line(join("isagi", c.Name, c.Args), c.Summary)
		for _, f := range c.More {
			line(join("isagi", c.Name, f.Args), f.Summary)
		}
	}
}
