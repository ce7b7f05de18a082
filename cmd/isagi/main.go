// Command isagi is the ISAGI terminal workstation for local language models.
//
//	isagi [--model M | --demo]               chat in the terminal (the TUI)
//	isagi run --model M.gguf --prompt TEXT   stream a continuation
//	isagi bench --model M.gguf               prefill/decode speed
//	isagi serve --model M.gguf               OpenAI-compatible server
//	isagi inspect M.gguf                     metadata, tensors and sizes
//	isagi help [COMMAND]                     the commands, or one command's flags
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// version is stamped by the build (-ldflags "-X main.version=…").
var version = "dev"

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "isagi:", userMessage(err))
	}
	os.Exit(exitCode(err))
}

// userMessage is err as one sentence for a person: a file the system
// could not open is named with what went wrong in words (not Go's "open
// /x/.y.lock: no such file or directory"), and the package names Go puts
// before its messages ("miku: ") are left out.
func userMessage(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		path := pe.Path
		// A session file's lock sits beside it as .NAME.lock: name the
		// session file, which is what the user gave.
		if dir, base := filepath.Split(path); strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".miku.lock") {
			path = filepath.Join(dir, strings.TrimSuffix(strings.TrimPrefix(base, "."), ".lock"))
		}
		switch {
		case errors.Is(pe.Err, fs.ErrNotExist):
			if dir := filepath.Dir(path); dir != "." && !exists(dir) {
				return fmt.Sprintf("%s: the folder %s does not exist", path, dir)
			}
			return fmt.Sprintf("%s does not exist", path)
		case errors.Is(pe.Err, fs.ErrPermission):
			return fmt.Sprintf("%s: permission denied", path)
		}
	}
	// Only a package name that opens the message or one of its wrapped
	// parts is Go's: "x.miku: …" is a file name.
	msg := err.Error()
	for _, pkg := range []string{"miku: ", "session: ", "model: ", "gguf: "} {
		msg = strings.ReplaceAll(msg, ": "+pkg, ": ")
		msg = strings.TrimPrefix(msg, pkg)
	}
	return msg
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// exitCode is the process status for what run returned: 0 for success and
// for a help request (the user asked for it and got it), 2 for a mistake
// in the command line, as flag-parsing tools conventionally do, and 1 for
// everything that went wrong once the command ran — a script can tell "you
// called me wrong" from "it failed".
func exitCode(err error) int {
	var u usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		return 2
	}
	return 1
}

// usageError is a mistake in the command line (an unknown flag or command,
// a missing argument, flags that do not go together): exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef is a usageError with a formatted message; %w wraps as in fmt.Errorf.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// parseFlags parses args into fs. Unlike a bare fs.Parse it prints nothing
// on a mistake — the returned usageError is the one line main prints,
// pointing at --help — and on -h/--help it prints fs's usage to helpOut and
// returns flag.ErrHelp, for which main exits 0. Subcommands pass stderr
// (Go's flag convention, as before); `isagi --help` and the TUI's flag set
// use stdout.
func parseFlags(fs *flag.FlagSet, args []string, helpOut io.Writer) error {
	addAliases(fs)
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	if err == nil {
		err = checkCounts(fs)
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(helpOut)
		fs.Usage()
		fs.SetOutput(out)
		return flag.ErrHelp
	case err != nil:
		fs.SetOutput(out)
		err = errors.New(flagMessage(err.Error(), args))
		if fs.Name() == "isagi" { // main already says "isagi:"
			return usagef("%w (see \"isagi --help\")", err)
		}
		return usagef("%s: %w (see \"%s --help\")", fs.Name(), err, commandName(fs))
	}
	fs.SetOutput(out)
	return nil
}

// flagAliases are the short flags and llama.cpp's long names that users of
// llama-cli and ollama type, for the flag each stands for. A command gets
// an alias only where it has the flag.
func flagAliases() [][2]string {
	return [][2]string{
		{"m", "model"}, {"p", "prompt"}, {"c", "ctx"}, {"t", "threads"}, {"s", "seed"}, {"f", "file"},
		{"ctx-size", "ctx"}, {"n-predict", "n"}, {"predict", "n"},
	}
}

// flagGiven says whether the flag name was given on the command line,
// under its own name or an alias.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			given = true
		}
		for _, a := range flagAliases() {
			if a[0] == f.Name && a[1] == name {
				given = true
			}
		}
	})
	return given
}

// addAliases registers fs's aliases, sharing the flag's value.
func addAliases(fs *flag.FlagSet) {
	for _, a := range flagAliases() {
		if f := fs.Lookup(a[1]); f != nil && fs.Lookup(a[0]) == nil {
			fs.Var(f.Value, a[0], dashed(a[0])+" is "+dashed(a[1]))
		}
	}
}

// checkCounts refuses a negative --threads or --ctx (0 means the default).
func checkCounts(fs *flag.FlagSet) error {
	for _, name := range []string{"threads", "ctx"} {
		if f := fs.Lookup(name); f != nil {
			if v, err := strconv.Atoi(f.Value.String()); err == nil && v < 0 {
				return fmt.Errorf("--%s %d: give a positive number, or 0 for the default", name, v)
			}
		}
	}
	return nil
}

// flagMessage rewrites the flag package's errors for a person: an unknown
// flag as it was typed ("--ctx-size", not "-ctx-size"), a flag named with
// two dashes, and a value that is not a number without Go's parser names.
func flagMessage(msg string, args []string) string {
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		for _, a := range args {
			if a == "--" {
				break
			}
			typed, _, _ := strings.Cut(a, "=")
			if strings.TrimLeft(typed, "-") == name && strings.HasPrefix(typed, "-") {
				return "unknown flag " + typed
			}
		}
		return "unknown flag " + dashed(name)
	}
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if v, tail, ok := strings.Cut(rest, " for flag -"); ok {
			name, why, _ := strings.Cut(tail, ": ")
			switch {
			case strings.Contains(why, "parse error"), strings.Contains(why, "invalid syntax"), strings.Contains(why, "strconv."):
				why = "not a number"
			case strings.Contains(why, "out of range"):
				why = "out of range"
			}
			return fmt.Sprintf("%s %s: %s", dashed(name), v, why)
		}
	}
	// A value a boolean-style flag (--demo) refuses: the flag package says
	// "invalid boolean value", which is not what the user typed.
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		if v, tail, ok := strings.Cut(rest, " for -"); ok {
			name, why, _ := strings.Cut(tail, ": ")
			return fmt.Sprintf("%s=%s: %s", dashed(name), strings.Trim(v, `"`), why)
		}
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return dashed(name) + " needs a value"
	}
	return msg
}

// dashed writes a flag's name as users type it: -n, --model.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// commandName is how the user types fs's command: "isagi run".
func commandName(fs *flag.FlagSet) string {
	if fs.Name() == "isagi" {
		return "isagi"
	}
	return "isagi " + fs.Name()
}

// argsError is a usageError about fs's positional arguments.
func argsError(fs *flag.FlagSet, format string, a ...any) error {
	return usagef("%s (see \"%s --help\")", fmt.Sprintf(format, a...), commandName(fs))
}

// usageHead and usageTail frame the top-level help; the TUI's flags go
// between them, printed from the flag set itself so the list cannot drift
// from what cmdTUI accepts.
const usageHead = `isagi — a terminal workstation for living language models

Usage:
  isagi [flags]                            chat in the terminal (the TUI); flags below
  isagi --demo                             chat with the built-in demo model
  isagi --load s.miku                      resume a saved session (ctrl+s or /save in the TUI)
  isagi pull MODEL                         download a GGUF model (hf.co/ORG/REPO[:FILE] or a short name)
  isagi models                             list installed models
  isagi session info s.miku [--json]       what a saved session holds
  isagi run --model M.gguf --prompt TEXT   stream a continuation to stdout
  isagi run --model M.gguf --chat --prompt TEXT   chat: one user turn, templated
  isagi bench --model M.gguf [--json]      prefill/decode speed vs memory bandwidth
  isagi tokenize --model M.gguf TEXT       token ids of TEXT (--decode: ids to text)
  isagi ppl --model M.gguf --file T.txt    perplexity of the model over a text
  isagi calibrate --model M.gguf           build the model's geometry profile (TEH gauges, Snipe projectors)
  isagi eval teh|snipe|cog --model M.gguf  the profile's detection / projector / memory figures on held-out prompts
  isagi explore --chain 0.2,0.1,0.05 "seed concept"   Safe OGD exploration chain, with TEH and creativity
  isagi serve --model M.gguf [--port N]    OpenAI-compatible server with ISAGI's extensions (docs/serve.md)
  isagi inspect [--tensors] M.gguf         show a GGUF file's metadata and tensors
  isagi version                            print the version

Every command that loads a model takes --model M (a file or an installed
name) or --demo (the built-in demo model). Run "isagi COMMAND --help" (or
"isagi help COMMAND") for a command's flags and examples.

Flags of the TUI (isagi [flags]):
`

const usageTail = `
Examples:
  isagi --demo
  isagi pull smollm2-135m-instruct && isagi --model smollm2-135m-instruct
  isagi run --demo --prompt "And God said" -n 40
  isagi run --model kjv-f32.gguf --prompt-ids 1,300,391,394 --temp 0 --ids
  isagi bench --demo
  isagi inspect --tensors model.gguf | less
`

// printUsage writes the top-level help to w.
func printUsage(w io.Writer) {
	fmt.Fprint(w, usageHead)
	fs := flag.NewFlagSet("isagi", flag.ContinueOnError)
	var tf tuiFlags
	tf.register(fs)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, usageTail)
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (strings.HasPrefix(args[0], "-") && !isHelp(args[0]) && args[0] != "--version") {
		return cmdTUI(args, stdout, stderr)
	}
	switch args[0] {
	case "inspect":
		return cmdInspect(args[1:], stdout, stderr)
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "bench":
		return cmdBench(args[1:], stdout, stderr)
	case "tokenize":
		return cmdTokenize(args[1:], stdout, stderr)
	case "pull":
		return cmdPull(args[1:], stdout, stderr)
	case "models":
		return cmdModels(args[1:], stdout, stderr)
	case "session":
		return cmdSession(args[1:], stdout, stderr)
	case "ppl":
		return cmdPPL(args[1:], stdout, stderr)
	case "calibrate":
		return cmdCalibrate(args[1:], stdout, stderr)
	case "eval":
		return cmdEval(args[1:], stdout, stderr)
	case "explore":
		return cmdExplore(args[1:], stdout, stderr)
	case "serve":
		return cmdServe(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "isagi", version)
		return nil
	case "help", "-h", "-help", "--help":
		// "isagi help run" is "isagi run --help".
		if args[0] == "help" && len(args) > 1 && args[1] != "help" && !strings.HasPrefix(args[1], "-") {
			return run([]string{args[1], "--help"}, stdout, stderr)
		}
		printUsage(stdout)
		return nil
	}
	return usagef("unknown command %q (see \"isagi --help\")", args[0])
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }
