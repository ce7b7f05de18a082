package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/conversation"
	"github.com/isagi-lab/isagi/internal/jsonwords"
	"github.com/isagi-lab/isagi/miku"
)

// Export formats (Conversation.Export, the TUI's /export, isagi session
// export).
const (
	ExportMarkdown = "md"
	ExportJSON     = "json"
	ExportJSONL    = "jsonl"
)

// ExportFormats lists the formats, for messages.
const ExportFormats = "md, json or jsonl"

// exportMessage is one message in OpenAI's chat format.
type exportMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// exportConversation is one branch as OpenAI's chat completion request and
// fine-tuning files hold a conversation: {"messages": [...]}.
type exportConversation struct {
	Messages []exportMessage `json:"messages"`
}

// exportSource is what an export reads: a session's conversation, or a
// file's without its model.
type exportSource struct {
	name   string         // the model's name, for the markdown title
	system string         // the system message ("": none)
	tree   *Tree          // chat mode
	text   []chat.Message // completion mode's transcript (tree nil)
}

// ExportFile is Export of the session file at path, read without its
// model: isagi session export.
func ExportFile(w io.Writer, path, format string, all bool) error {
	if err := CheckExportFormat(format); err != nil {
		return err
	}
	f, err := miku.Read(path)
	if err != nil {
		return err
	}
	sec, ok := f.Section(sectionConversation)
	if !ok {
		return fmt.Errorf("%s: no conversation section", path)
	}
	var conv savedConv
	if err := json.Unmarshal(sec.Data, &conv); err != nil {
		return fmt.Errorf("%s: the conversation section is damaged: %s", path, jsonwords.String(err))
	}
	src := exportSource{name: f.Header.Model.Name}
	if src.name == "" {
		src.name = f.Header.Model.File
	}
	if conv.Mode == ModeCompletion.String() {
		c := conversation.New(nil, nil)
		c.Restore(conversation.Record{Text: conv.Text, Parts: conv.Parts})
		src.text = c.Transcript()
	} else {
		if len(conv.Messages) > 0 && conv.Messages[0].Role == "system" {
			src.system = conv.Messages[0].Content
		}
		tree, _, err := loadTree(f, conv)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		src.tree = tree
	}
	return export(w, format, all, src)
}

// CheckExportFormat refuses an unknown export format.
func CheckExportFormat(format string) error {
	switch format {
	case ExportMarkdown, ExportJSON, ExportJSONL:
		return nil
	}
	return fmt.Errorf("unknown export format %q (%s)", format, ExportFormats)
}

// export writes src in format.
func export(w io.Writer, format string, all bool, src exportSource) error {
	if err := CheckExportFormat(format); err != nil {
		return err
	}
	branches, current := src.branches(all)
	bw := bufio.NewWriter(w)
	var err error
	switch format {
	case ExportMarkdown:
		err = writeMarkdown(bw, branches, current, all, src.name)
	case ExportJSON:
		enc := json.NewEncoder(bw)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if all {
			err = enc.Encode(struct {
				Current       int                  `json:"current"`
				Conversations []exportConversation `json:"conversations"`
			}{current, branches})
		} else {
			err = enc.Encode(branches[0])
		}
	case ExportJSONL:
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for _, b := range branches {
			if err = enc.Encode(b); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// branches is the branch in use, or every branch (one per leaf of the
// tree, oldest first) and which of them is in use.
func (src exportSource) branches(all bool) ([]exportConversation, int) {
	var system []exportMessage
	if src.system != "" {
		system = append(system, exportMessage{Role: "system", Content: src.system})
	}
	branch := func(path []Node) exportConversation {
		c := exportConversation{Messages: append([]exportMessage{}, system...)}
		for _, n := range path {
			c.Messages = append(c.Messages, exportMessage{Role: n.Role, Content: n.Content})
		}
		return c
	}
	if src.tree == nil {
		c := exportConversation{Messages: append([]exportMessage{}, system...)}
		for _, m := range src.text {
			role := RoleUser
			if m.Role == RoleContinuation {
				role = RoleAssistant
			}
			c.Messages = append(c.Messages, exportMessage{Role: role, Content: m.Content})
		}
		return []exportConversation{c}, 0
	}
	t := src.tree
	if !all {
		return []exportConversation{branch(t.Branch())}, 0
	}
	// The branch in use ends at the current node or runs on past it (a
	// rewind): its leaf is where the current node's branch was left.
	inUse := t.leaf(t.cur)
	var out []exportConversation
	current := 0
	for _, id := range t.leaves() {
		if id == inUse {
			current = len(out)
		}
		out = append(out, branch(t.pathTo(id)))
	}
	if len(out) == 0 {
		out = append(out, branch(nil))
	}
	return out, current
}

// writeMarkdown writes branches for people to read.
func writeMarkdown(w io.Writer, branches []exportConversation, current int, all bool, name string) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "# Conversation with %s\n", name)
	for i, b := range branches {
		if all {
			mark := ""
			if i == current {
				mark = " (in use)"
			}
			fmt.Fprintf(ew, "\n## Branch %d of %d%s\n", i+1, len(branches), mark)
		}
		for _, m := range b.Messages {
			fmt.Fprintf(ew, "\n**%s**\n\n%s\n", roleTitle(m.Role), m.Content)
		}
	}
	return ew.err
}

// roleTitle is a role as a markdown heading says it.
func roleTitle(role string) string {
	switch role {
	case "system":
		return "System"
	case RoleUser:
		return "User"
	case RoleAssistant:
		return "Assistant"
	}
	return role
}

// errWriter keeps the first write error, so that a sequence of Fprintf
// needs one check.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// FileSummary describes a session file for a list of them (the TUI's
// /sessions): read without the model.
type FileSummary struct {
	Path     string
	Model    string // the model's name or file
	Updated  time.Time
	Messages int    // in the branch in use (chat), or the parts of the text
	Branches int    // 1 for a conversation never branched
	First    string // the first message, as a title
}

// Summarize reads the summary of the session file at path.
func Summarize(path string) (FileSummary, error) {
	f, err := miku.Read(path)
	if err != nil {
		return FileSummary{}, err
	}
	sum := FileSummary{Path: path, Model: f.Header.Model.Name, Updated: f.Header.Updated, Branches: 1}
	if sum.Model == "" {
		sum.Model = f.Header.Model.File
	}
	sec, ok := f.Section(sectionConversation)
	if !ok {
		return FileSummary{}, fmt.Errorf("%s: no conversation section", path)
	}
	var conv savedConv
	if err := json.Unmarshal(sec.Data, &conv); err != nil {
		return FileSummary{}, fmt.Errorf("%s: the conversation section is damaged: %s", path, jsonwords.String(err))
	}
	if conv.Mode == ModeCompletion.String() {
		sum.Messages = len(conv.Parts)
		sum.First = conv.Text
		return sum, nil
	}
	tree, _, err := loadTree(f, conv)
	if err != nil {
		return FileSummary{}, fmt.Errorf("%s: %w", path, err)
	}
	br := tree.Branch()
	sum.Messages = len(br)
	sum.Branches = max(tree.Leaves(), 1)
	if len(br) > 0 {
		sum.First = br[0].Content
	}
	return sum, nil
}
