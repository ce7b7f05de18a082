// Command isagi is the ISAGI terminal workstation for local language models.
//
//	isagi [--model M | --demo]    chat in the terminal (the TUI)
//	isagi COMMAND [flags]         run a command
//	isagi help [COMMAND]          the commands, or one command's flags
//
// The commands are internal/cli's table (cli.Commands): main runs one and
// turns what it returns into a message and an exit status.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/isagi-lab/isagi/internal/cli"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/jsonwords"
)

// version is stamped by the build (-ldflags "-X main.version=…").
var version = "dev"

func main() {
	err := cli.Run(base.Env{Version: version, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Args[1:])
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
	msg := jsonwords.Rewrite(err, err.Error())
	for _, pkg := range []string{"miku: ", "session: ", "model: ", "gguf: ", "chat: ", "geometry: ", "kveval: ", "json: "} {
		msg = strings.ReplaceAll(msg, ": "+pkg, ": ")
		msg = strings.TrimPrefix(msg, pkg)
	}
	return msg
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
