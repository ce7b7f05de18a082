// Package sessioncmd is `isagi session`: what a saved session file holds
// (info) and its conversation written out (export), without a model.
package sessioncmd

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
)

// Subcommands are session's subcommands, in the order the help lists
// them: what Main dispatches to and what the top-level help lists.
func Subcommands() []base.Command {
	return []base.Command{
		{Name: "info", Args: "s.miku [--json]", Summary: "what a saved session holds", Main: cmdSessionInfo},
		{Name: "export", Args: "s.miku [--all]", Summary: "the conversation as markdown, JSON or JSONL", Main: cmdSessionExport},
	}
}

// Main is `isagi session info FILE.miku [--json]` and `isagi session
// export FILE.miku [--format F] [--all] [-o OUT]`.
func Main(env base.Env, args []string) error {
	if len(args) > 0 && base.IsHelp(args[0]) {
		fmt.Fprint(env.Stderr, sessionUsage)
		return flag.ErrHelp
	}
	if len(args) > 0 {
		if c, ok := base.Lookup(Subcommands(), args[0]); ok {
			return c.Main(env, args[1:])
		}
	}
	return base.SubcommandError("session", Subcommands(), args)
}

// cmdSessionInfo is `isagi session info`.
func cmdSessionInfo(env base.Env, args []string) error {
	fs := env.FlagSet("session info", sessionUsage+"\nFlags:\n", "")
	asJSON := fs.Bool("json", false, "print one JSON object")
	files, err := parseAround(env, fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return base.ArgsError(fs, "session info needs one .miku file, got %d", len(files))
	}
	f, err := miku.Read(files[0])
	if err != nil {
		return err
	}
	var conv struct {
		Mode string `json:"mode"`
		Text string `json:"text"`
	}
	// The messages are counted in the tree (Summarize), which holds every
	// message of every branch; the conversation section keeps only what
	// fits the window. A file whose tree the other commands refuse is
	// refused here too, with their reason.
	messages, branches := 0, 0
	if sec, ok := f.Section("conversation"); ok {
		if err := json.Unmarshal(sec.Data, &conv); err != nil {
			return fmt.Errorf("%s: the conversation section is damaged: %w", files[0], err)
		}
		sum, err := session.Summarize(files[0])
		if err != nil {
			return err
		}
		messages, branches = sum.Messages, sum.Branches
	} else {
		conv.Mode = "none"
	}
	h := f.Header
	sections := make([]map[string]any, 0, len(h.Sections))
	for _, s := range h.Sections {
		sections = append(sections, map[string]any{"name": s.Name, "bytes": s.Length, "required": s.Required})
	}
	var manifold map[string]any
	if sec, ok := f.Section("cog"); ok {
		m, err := cog.Decode(sec.Data)
		if err != nil {
			return fmt.Errorf("%s: cog section: %w", files[0], err)
		}
		manifold = map[string]any{"growth": m.Growth(), "trajectories": m.Len(), "clusters": m.Clusters(), "dim": m.Dim()}
	}
	served := -1 // no record: the file predates it, or nothing was served
	if sec, ok := f.Section("cog.served"); ok {
		var sf struct {
			Served []json.RawMessage `json:"served"`
		}
		if err := json.Unmarshal(sec.Data, &sf); err != nil {
			return fmt.Errorf("%s: cog.served section: %w", files[0], err)
		}
		served = len(sf.Served)
	}
	info := map[string]any{
		"file": files[0], "format_version": h.FormatVersion, "app_version": h.AppVersion,
		"created": h.Created, "updated": h.Updated, "model": h.Model,
		"mode": conv.Mode, "messages": messages, "text_bytes": len(conv.Text), "branches": branches,
		"knobs": h.Knobs, "sections": sections,
	}
	if manifold != nil {
		info["manifold"] = manifold
	}
	if served >= 0 {
		info["served_from_memory"] = served
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	// One write: the table flushed cell by cell would reach a pipe in many
	// writes, and a reader that stops at its first match (grep -q) would
	// break the pipe under the later ones.
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "file\t%s\n", files[0])
	fmt.Fprintf(w, "format\tversion %d, written by isagi %s\n", h.FormatVersion, h.AppVersion)
	fmt.Fprintf(w, "created\t%s\n", h.Created.Format("2006-01-02 15:04:05 MST"))
	fmt.Fprintf(w, "updated\t%s\n", h.Updated.Format("2006-01-02 15:04:05 MST"))
	fmt.Fprintf(w, "model\t%s (%s, sha256 %.16s…)\n", h.Model.File, h.Model.Arch, h.Model.SHA256)
	// A completion session keeps running text and no messages; a chat
	// session messages and no running text: say what this one holds.
	switch {
	case branches == 0:
		fmt.Fprintf(w, "conversation\tnone (the file has no conversation section)\n")
	case conv.Mode == session.ModeCompletion.String():
		fmt.Fprintf(w, "conversation\t%s mode, %d bytes of running text\n", conv.Mode, len(conv.Text))
	default:
		fmt.Fprintf(w, "conversation\t%s mode, %d messages in the branch in use, %d %s\n", conv.Mode, messages, branches, map[bool]string{true: "branch", false: "branches"}[branches == 1])
	}
	fmt.Fprintf(w, "knobs\t%s\n", h.Knobs)
	if manifold != nil {
		fmt.Fprintf(w, "manifold\tgrowth %.4f, %d trajectories in %d clusters (k=%d)\n", manifold["growth"], manifold["trajectories"], manifold["clusters"], manifold["dim"])
	}
	if served >= 0 {
		fmt.Fprintf(w, "memory\t%d %s served from memory\n", served, map[bool]string{true: "answer", false: "answers"}[served == 1])
	}
	for _, s := range h.Sections {
		fmt.Fprintf(w, "section\t%s, %d bytes\n", s.Name, s.Length)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return out.Flush()
}

const sessionUsage = `Usage: isagi session info FILE.miku [--json]
       isagi session export FILE.miku [--format md|json|jsonl] [--all] [-o OUT]

info prints what a saved session holds — model, times, conversation size,
knobs, sections — without loading a model.

export writes the conversation's branch in use (--all: every branch) as
markdown, as JSON in OpenAI's messages format ({"messages":[…]}), or as JSONL
(one conversation per line, as fine-tuning files are), to stdout or -o OUT.

Examples:
  isagi session info chat.miku
  isagi session info chat.miku --json | jq .messages
  isagi session export chat.miku > chat.md
  isagi session export chat.miku --format jsonl --all -o branches.jsonl
`

// cmdSessionExport is isagi session export.
func cmdSessionExport(env base.Env, args []string) error {
	fs := env.FlagSet("session export", sessionUsage+"\nFlags:\n", "")
	format := fs.String("format", session.ExportMarkdown, "md, json or jsonl")
	all := fs.Bool("all", false, "every branch of the conversation tree, not only the one in use")
	out := fs.String("o", "", "write to this file (created; an existing file is not overwritten) instead of stdout")
	files, err := parseAround(env, fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return base.ArgsError(fs, "session export needs one .miku file, got %d", len(files))
	}
	if session.CheckExportFormat(*format) != nil {
		return base.Usagef("--format %q: want %s", *format, session.ExportFormats)
	}
	if *out == "" {
		scr, flush := env.Screen() // a file's messages, cleaned on a terminal
		if err := session.ExportFile(scr, files[0], *format, *all); err != nil {
			return err
		}
		return flush()
	}
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		// O_EXCL says "file exists" for a folder too: say which it is.
		if st, serr := os.Stat(*out); serr == nil && st.IsDir() {
			return fmt.Errorf("-o %s is a folder: give the name of a file to create", *out)
		}
		return fmt.Errorf("-o %s already exists: choose another name or remove it (export does not overwrite)", *out)
	}
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	if err := session.ExportFile(f, files[0], *format, *all); err != nil {
		f.Close()
		os.Remove(*out)
		return err
	}
	return f.Close()
}

// parseAround parses fs's flags wherever they stand among the file names
// ("info s.miku --json") and returns the file names.
func parseAround(env base.Env, fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for rest := args; ; {
		if err := env.Parse(fs, rest); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return files, nil
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
}
