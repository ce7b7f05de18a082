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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/isagi-lab/isagi/internal/cli"
	"github.com/isagi-lab/isagi/internal/cli/base"
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
	msg := jsonWords(err, err.Error())
	for _, pkg := range []string{"miku: ", "session: ", "model: ", "gguf: ", "chat: ", "geometry: ", "kveval: ", "json: "} {
		msg = strings.ReplaceAll(msg, ": "+pkg, ": ")
		msg = strings.TrimPrefix(msg, pkg)
	}
	return msg
}

// jsonWords rewrites in msg what encoding/json says of a value of the
// wrong kind in a file ("json: cannot unmarshal number into Go struct
// field Case.context of type string") as the file's reader sees it: the
// field, what it holds and what belongs there, without Go's type names.
func jsonWords(err error, msg string) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return msg
	}
	got := jsonKind(te.Value)
	want := "another kind of value"
	if te.Type != nil {
		want = goKind(te.Type)
	}
	words := fmt.Sprintf("the JSON holds %s where %s belongs", got, want)
	if te.Field != "" {
		words = fmt.Sprintf("the JSON field %q holds %s where %s belongs", te.Field, got, want)
	}
	return strings.Replace(msg, te.Error(), words, 1)
}

// jsonKind is a JSON value's kind as encoding/json names it ("number",
// "number 1e999", "string", "array", "object", "bool"), in words.
func jsonKind(v string) string {
	switch first, _, _ := strings.Cut(v, " "); first {
	case "number":
		return "a number"
	case "string":
		return "text"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "true or false"
	}
	return v
}

// goKind is what a Go type takes in JSON, in words.
func goKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
