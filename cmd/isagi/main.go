// Command isagi is the ISAGI terminal workstation for local language models.
//
// This build runs models from the command line; the chat TUI and the
// geometry panes arrive with later issues.
//
//	isagi run --model M.gguf --prompt TEXT   stream a continuation
//	isagi bench --model M.gguf               prefill/decode speed
//	isagi inspect M.gguf                     metadata, tensors and sizes
//	isagi version
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// version is stamped by the build (-ldflags "-X main.version=…").
var version = "dev"

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "isagi:", err)
		}
		os.Exit(2)
	}
}

const usage = `isagi — a terminal workstation for living language models

Usage:
  isagi [--model M] [--demo]               chat in the terminal (the TUI)
  isagi pull MODEL                         download a GGUF model (hf.co/ORG/REPO[:FILE] or a short name)
  isagi models                             list installed models
  isagi --load s.miku                      resume a saved session (ctrl+s or /save in the TUI)
  isagi session info s.miku [--json]       what a saved session holds
  isagi run --model M.gguf --prompt TEXT   stream a continuation to stdout
  isagi bench --model M.gguf [--json]      prefill/decode speed vs memory bandwidth
  isagi run --model M.gguf --chat --prompt TEXT   chat: one user turn, templated
  isagi tokenize --model M.gguf TEXT       token ids of TEXT (--decode: ids to text)
  isagi ppl --model M.gguf --file T.txt    perplexity of the model over a text
  isagi calibrate --model M.gguf           build the model's geometry profile (TEH gauges, Snipe projectors)
  isagi eval teh|snipe --model M.gguf      the profile's detection / projector figures on held-out prompts
  isagi explore --chain 0.2,0.1,0.05 "seed concept"   Safe OGD exploration chain, with TEH and creativity
  isagi inspect [--tensors] M.gguf         show a GGUF file's metadata and tensors
  isagi version                            print the version

Run "isagi COMMAND --help" for a command's flags and examples.

Examples:
  isagi --demo
  isagi pull smollm2-135m-instruct && isagi --model smollm2-135m-instruct
  isagi run --model ../shared/fixtures/kjv/kjv-q8_0.gguf --prompt "And God said" -n 40
  isagi run --model kjv-f32.gguf --prompt-ids 1,300,391,394 --temp 0 --ids
  isagi bench --model ../shared/fixtures/kjv/kjv-q4_k_m.gguf
  isagi inspect --tensors model.gguf | less
`

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
	case "version", "--version":
		fmt.Fprintln(stdout, "isagi", version)
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }
