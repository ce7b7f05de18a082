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
	"github.com/isagi-lab/isagi/internal/cli/servecmd"
	"github.com/isagi-lab/isagi/internal/cli/tokenize"
)

// version is stamped by the build (-ldflags "-X main.version=…").
var version = "dev"

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "isagi:", userMessage(err))
	}
	os.Exit(base.ExitCode(err))
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
  isagi session export s.miku [--all]      the conversation as markdown, JSON or JSONL
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
	if len(args) == 0 || (strings.HasPrefix(args[0], "-") && !base.IsHelp(args[0]) && args[0] != "--version") {
		return cmdTUI(args, stdout, stderr)
	}
	switch args[0] {
	case "inspect":
		return inspect.Main(args[1:], stdout, stderr)
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "bench":
		return bench.Main(version, args[1:], stdout, stderr)
	case "tokenize":
		return tokenize.Main(args[1:], stdout, stderr)
	case "pull":
		return pullcmd.Main(version, args[1:], stdout, stderr)
	case "models":
		return models.Main(args[1:], stdout, stderr)
	case "session":
		return cmdSession(args[1:], stdout, stderr)
	case "ppl":
		return ppl.Main(version, args[1:], stdout, stderr)
	case "calibrate":
		return calibrate.Main(version, args[1:], stdout, stderr)
	case "eval":
		return evalcmd.Main(version, args[1:], stdout, stderr)
	case "explore":
		return explore.Main(version, args[1:], stdout, stderr)
	case "serve":
		return servecmd.Main(version, args[1:], stdout, stderr)
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
	return base.Usagef("unknown command %q (see \"isagi --help\")", args[0])
}
