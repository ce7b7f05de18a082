// Package base holds what isagi's commands share: the Env they run in and
// the one Main signature they have, the Command rows of the command table,
// the flag set every command makes and its usage, usage errors and the
// flag parsing that words them, the flags that choose and open a model
// (model, device, GRC, KV eviction, speculative decoding, geometry
// profile), and small printing helpers. It is cmd/go/internal/base's
// counterpart for internal/cli.
package base

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ExitCode is the process status for what a command returned: 0 for success and
// for a help request (the user asked for it and got it), 2 for a mistake
// in the command line, as flag-parsing tools conventionally do, and 1 for
// everything that went wrong once the command ran — a script can tell "you
// called me wrong" from "it failed".
func ExitCode(err error) int {
	var u UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		return 2
	}
	return 1
}

// UsageError is a mistake in the command line (an unknown flag or command,
// a missing argument, flags that do not go together): exit status 2.
type UsageError struct{ Err error }

// Error is the mistake's message.
func (e UsageError) Error() string { return e.Err.Error() }

// Unwrap is the mistake's error.
func (e UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError with a formatted message; %w wraps as in fmt.Errorf.
func Usagef(format string, a ...any) error { return UsageError{Err: fmt.Errorf(format, a...)} }

// ParseFlags parses args into fs. Unlike a bare fs.Parse it prints nothing
// on a mistake — the returned UsageError is the one line main prints,
// pointing at --help — and on -h/--help it prints fs's usage to helpOut and
// returns flag.ErrHelp, for which main exits 0. Subcommands pass stderr
// (Go's flag convention, as before); `isagi --help` and the TUI's flag set
// use stdout.
func ParseFlags(fs *flag.FlagSet, args []string, helpOut io.Writer) error {
	addAliases(fs)
	if fs.Lookup("control-vector-layer-range") != nil {
		args = joinLlamaArgs(args)
	}
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
			return Usagef("%w (see \"isagi --help\")", err)
		}
		return Usagef("%s: %w (see \"%s --help\")", fs.Name(), err, commandName(fs))
	}
	fs.SetOutput(out)
	return nil
}

// FlagAliases are the short flags and llama.cpp's long names that users of
// llama-cli and ollama type, for the flag each stands for. A command gets
// an alias only where it has the flag.
func FlagAliases() [][2]string {
	return [][2]string{
		{"m", "model"}, {"p", "prompt"}, {"c", "ctx"}, {"t", "threads"}, {"s", "seed"}, {"f", "file"},
		{"ctx-size", "ctx"}, {"n-predict", "n"}, {"predict", "n"},
	}
}

// FlagGiven says whether the flag name was given on the command line,
// under its own name or an alias.
func FlagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			given = true
		}
		for _, a := range FlagAliases() {
			if a[0] == f.Name && a[1] == name {
				given = true
			}
		}
	})
	return given
}

// addAliases registers fs's aliases, sharing the flag's value.
func addAliases(fs *flag.FlagSet) {
	for _, a := range FlagAliases() {
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

// ArgsError is a UsageError about fs's positional arguments.
func ArgsError(fs *flag.FlagSet, format string, a ...any) error {
	return Usagef("%s (see \"%s --help\")", fmt.Sprintf(format, a...), commandName(fs))
}

// IsHelp says whether a is a request for help: -h, -help or --help.
func IsHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }
