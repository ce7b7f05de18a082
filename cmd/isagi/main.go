// Command isagi is the ISAGI terminal workstation for local language models.
//
// This build has the model-file tools; the chat TUI, generation and the
// geometry panes arrive with later issues.
//
//	isagi inspect MODEL.gguf     metadata, tensors and sizes of a GGUF file
//	isagi version
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
  isagi inspect [--tensors] MODEL.gguf   show a GGUF file's metadata and tensors
  isagi version                          print the version

Examples:
  isagi inspect ../shared/fixtures/kjv/kjv-q4_k_m.gguf
  isagi inspect --tensors model.gguf | less
`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return flag.ErrHelp
	}
	switch args[0] {
	case "inspect":
		return cmdInspect(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "isagi", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
