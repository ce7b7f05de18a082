package session

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/miku"
)

// trainedChat is the chat fixture model we train (testdata/models): a
// model whose replies mean something, small enough for unit tests.
func trainedChat(t *testing.T) string {
	t.Helper()
	p := filepath.Join("..", "testdata", "models", "chat.gguf")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the chat fixture model is missing: %v", err)
	}
	return p
}

// roles is a branch's roles and contents, for messages.
func branchText(b []BranchMessage) string {
	var s []string
	for _, m := range b {
		s = append(s, m.Role+":"+m.Content)
	}
	return strings.Join(s, " | ")
}

// TestTreeByHand checks the tree's own rules on a tree built by hand.
func TestTreeByHand(t *testing.T) {
	tr := NewTree()
	now := time.Unix(0, 0)
	tr.commit("a", "A1", nil, now) // 0 user, 1 reply
	tr.commit("b", "B1", nil, now) // 2, 3
	// A regeneration: the same message at the same point is that message.
	if err := tr.rewind(1); err != nil {
		t.Fatal(err)
	}
	tr.commit("b", "B2", nil, now) // 4 under 2
	if tr.Len() != 5 || tr.nodes[4].Parent != 2 {
		t.Fatalf("regenerated reply: %d nodes, parent %d", tr.Len(), tr.nodes[4].Parent)
	}
	if ids, at := tr.Siblings(4); len(ids) != 2 || at != 1 {
		t.Fatalf("siblings of 4: %v at %d", ids, at)
	}
	// An edit of the first message: a new first message beside it.
	if err := tr.rewind(-1); err != nil {
		t.Fatal(err)
	}
	tr.commit("a'", "A'1", nil, now) // 5, 6
	if got := len(tr.Branch()); got != 2 || tr.Branch()[0].Content != "a'" {
		t.Fatalf("branch after the edit: %+v", tr.Branch())
	}
	// Back to the old first message: its branch as it was left (B2).
	if _, err := tr.switchTo(5, -1); err != nil {
		t.Fatal(err)
	}
	if got := tr.Branch(); len(got) != 4 || got[3].Content != "B2" {
		t.Fatalf("branch after switching back: %+v", got)
	}
	if _, err := tr.switchTo(4, 1); err != nil { // wraps to B1
		t.Fatal(err)
	}
	if got := tr.Branch(); got[3].Content != "B1" {
		t.Fatalf("switching the reply: %+v", got)
	}
	if tr.Leaves() != 3 {
		t.Fatalf("%d leaves, want 3", tr.Leaves())
	}
	// Saved and read back, it is the same tree.
	data, err := json.Marshal(tr.saved())
	if err != nil {
		t.Fatal(err)
	}
	var st savedTree
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	back, err := treeFrom(st)
	if err != nil {
		t.Fatal(err)
	}
	if branchOf(back) != branchOf(tr) || back.Len() != tr.Len() {
		t.Fatalf("read back %q, saved %q", branchOf(back), branchOf(tr))
	}
	// follow: a client's conversation that departs at the second reply.
	if !tr.follow([]Node{{Role: RoleUser, Content: "a"}, {Role: RoleAssistant, Content: "A1"}, {Role: RoleUser, Content: "c"}, {Role: RoleAssistant, Content: "C"}}, now) {
		t.Fatal("follow refused alternating messages")
	}
	if tr.Len() != 9 || tr.Current() != 8 || tr.nodes[7].Parent != 1 {
		t.Fatalf("follow: %d nodes, current %d", tr.Len(), tr.Current())
	}
	if tr.follow([]Node{{Role: RoleUser, Content: "a"}, {Role: RoleUser, Content: "b"}}, now) {
		t.Fatal("follow took two user messages in a row")
	}
	if tr.follow([]Node{{Role: RoleUser, Content: "a"}}, now) {
		t.Fatal("follow took a branch that ends with the user's message")
	}
}

func branchOf(t *Tree) string {
	var s []string
	for _, n := range t.Branch() {
		s = append(s, n.Content)
	}
	return strings.Join(s, "/")
}

// TestTreeFromRefusesBadTrees: a damaged tree section is one clear error.
func TestTreeFromRefusesBadTrees(t *testing.T) {
	u := func(id, parent int) Node { return Node{ID: id, Parent: parent, Role: RoleUser} }
	r := func(id, parent int) Node { return Node{ID: id, Parent: parent, Role: RoleAssistant} }
	for name, st := range map[string]savedTree{
		"id":           {Nodes: []Node{u(1, -1)}, Last: []int{-1}, RootLast: -1, Current: -1},
		"parent after": {Nodes: []Node{u(0, 1), r(1, 0)}, Last: []int{-1, -1}, RootLast: -1, Current: -1},
		"role":         {Nodes: []Node{r(0, -1)}, Last: []int{-1}, RootLast: -1, Current: -1},
		"two users":    {Nodes: []Node{u(0, -1), u(1, 0)}, Last: []int{-1, -1}, RootLast: -1, Current: -1},
		"pointers":     {Nodes: []Node{u(0, -1)}, Last: []int{}, RootLast: -1, Current: -1},
		"branch":       {Nodes: []Node{u(0, -1), r(1, 0)}, Last: []int{0, -1}, RootLast: 0, Current: 1},
		"root branch":  {Nodes: []Node{u(0, -1), r(1, 0)}, Last: []int{1, -1}, RootLast: 1, Current: 1},
		"current":      {Nodes: []Node{u(0, -1), r(1, 0)}, Last: []int{1, -1}, RootLast: 0, Current: 5},
		"at a user":    {Nodes: []Node{u(0, -1), r(1, 0)}, Last: []int{1, -1}, RootLast: 0, Current: 0},
		"no reply":     {Nodes: []Node{u(0, -1)}, Last: []int{-1}, RootLast: 0, Current: -1},
	} {
		if _, err := treeFrom(st); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzTreeSection: any bytes in the tree section either read as a valid
// tree, on which every operation stays in bounds, or are refused.
func FuzzTreeSection(f *testing.F) {
	tr := NewTree()
	tr.commit("a", "A", nil, time.Unix(0, 0))
	tr.commit("b", "B", &Made{Seed: 1}, time.Unix(0, 0))
	_ = tr.rewind(1)
	tr.commit("c", "C", nil, time.Unix(0, 0))
	good, _ := json.Marshal(tr.saved())
	f.Add(good)
	f.Add([]byte(`{"nodes":[],"current":-1,"last":[],"root_last":-1}`))
	f.Add([]byte(`{"nodes":[{"id":0,"parent":-1,"role":"user"}],"current":0,"last":[-1],"root_last":0}`))
	f.Add([]byte(`{"nodes":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var st savedTree
		if json.Unmarshal(data, &st) != nil {
			return
		}
		tr, err := treeFrom(st)
		if err != nil {
			return
		}
		_ = tr.Branch()
		for id := range tr.Len() {
			_, _ = tr.Siblings(id)
			if _, err := tr.switchTo(id, 1); err != nil {
				t.Fatalf("switch %d: %v", id, err)
			}
			_ = tr.Branch()
		}
		_ = tr.rewind(tr.Len() - 1)
		tr.commit("x", "y", nil, time.Unix(0, 0))
		if _, err := treeFrom(tr.saved()); err != nil {
			t.Fatalf("a valid tree grew invalid: %v", err)
		}
	})
}

// TestBranching drives the tree through a session on the trained chat
// model: regenerate, switch, edit an earlier message, switch back, save,
// load — and measures that regenerating the last reply reuses the KV
// cache instead of reading the conversation again.
func TestBranching(t *testing.T) {
	set := DefaultSettings()
	set.Seed, set.MaxTokens = 3, 24
	s := open(t, trainedChat(t), Options{Threads: 2, Ctx: 512, Settings: set})
	cv := s.Conversation()
	first := send(t, s, "How do I boil an egg?")
	second := send(t, s, "And how long should it cool?")
	before := cv.Branch()
	if len(before) != 4 {
		t.Fatalf("branch of %d messages after two turns", len(before))
	}
	used, _ := cv.ContextUsed()

	// Regenerate: a sibling of the last reply, the cache reused.
	regen, err := cv.Regenerate(context.Background(), func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if regen.PromptTok > 1 {
		t.Fatalf("regenerating the last reply fed %d tokens of a %d-token conversation: the cache was not reused", regen.PromptTok, used)
	}
	t.Logf("regenerate fed %d prompt token(s) where the conversation is %d tokens", regen.PromptTok, used)
	b := cv.Branch()
	if len(b) != 4 || b[3].Siblings != 2 || b[3].Sibling != 1 || b[3].Content != strings.TrimSpace(regen.Text) && b[3].Content != regen.Text {
		t.Fatalf("after regenerate: %s (siblings %d)", branchText(b), b[3].Siblings)
	}
	if err := cv.Switch(b[3].ID, -1); err != nil {
		t.Fatal(err)
	}
	if got := cv.Branch(); got[3].Content != before[3].Content {
		t.Fatalf("switching back gave %q, the old reply was %q", got[3].Content, before[3].Content)
	}

	// Edit the first message: a new branch; the old one stays.
	edit, err := cv.Edit(context.Background(), before[0].ID, "How do I make tea?", func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	b = cv.Branch()
	if len(b) != 2 || b[0].Content != "How do I make tea?" || b[0].Siblings != 2 {
		t.Fatalf("after the edit: %s", branchText(b))
	}
	if edit.Text == first.Text {
		t.Logf("the edited message got the same reply as the original (%q)", edit.Text)
	}
	if err := cv.Switch(b[0].ID, -1); err != nil {
		t.Fatal(err)
	}
	if got := cv.Branch(); branchText(got) != branchText(before) {
		t.Fatalf("back on the old branch: %s\nwant %s", branchText(got), branchText(before))
	}
	_ = second

	// Saved and loaded, both branches are there.
	file := filepath.Join(t.TempDir(), "tree.miku")
	if err := s.Files().Save(context.Background(), file, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	r := open(t, trainedChat(t), Options{Threads: 2, Ctx: 512})
	if _, err := r.Files().Load(context.Background(), file, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := r.Conversation().Branch(); branchText(got) != branchText(before) {
		t.Fatalf("loaded branch %s\nwant %s", branchText(got), branchText(before))
	}
	if n := r.Conversation().Tree().Leaves(); n != 3 {
		t.Fatalf("loaded tree has %d branches, want 3", n)
	}
	// The loaded conversation goes on from where it was.
	send(t, r, "Thanks")
	if n := len(r.Conversation().Branch()); n != 6 {
		t.Fatalf("after a turn the loaded branch has %d messages", n)
	}
}

// TestOlderFilesLoad: files of every older format version load, as a
// single branch (session/testdata/README.md says how they were made).
func TestOlderFilesLoad(t *testing.T) {
	chat := open(t, trainedChat(t), Options{Threads: 2, Ctx: 512})
	// The file was saved with the chat fixture of its day, retrained since
	// (issue 56): it loads as another model's file, with its conversation
	// and knobs, which are what this test checks.
	notes, err := chat.Files().Load(context.Background(), filepath.Join("testdata", "v1-chat.miku"), LoadOptions{Force: true})
	if err != nil {
		t.Fatalf("v1 chat file: %v", err)
	}
	for _, n := range notes {
		if !strings.HasPrefix(n, "saved with chat.gguf") {
			t.Fatalf("v1 chat file: %v", notes)
		}
	}
	b := chat.Conversation().Branch()
	if len(b) != 4 || b[0].Content != "What is the capital of France?" || b[2].Content != "And of Spain?" {
		t.Fatalf("v1 chat file loads as %s", branchText(b))
	}
	for _, m := range b {
		if m.Siblings != 1 {
			t.Fatalf("v1 file loaded with branches: %s", branchText(b))
		}
	}
	// Saved again, it is a version 2 file with the same conversation.
	out := filepath.Join(t.TempDir(), "v2.miku")
	if err := chat.Files().Save(context.Background(), out, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := miku.Read(out)
	if err != nil || f.Header.FormatVersion != miku.FormatVersion {
		t.Fatalf("re-saved: %v, version %d", err, f.Header.FormatVersion)
	}
	if _, ok := f.Section(sectionTree); !ok {
		t.Fatal("the re-saved file has no tree section")
	}

	text := open(t, filepath.Join("..", "demo", "kjv-q8_0.gguf"), Options{Threads: 2, Ctx: 256})
	if _, err := text.Files().Load(context.Background(), filepath.Join("testdata", "v1-text.miku"), LoadOptions{}); err != nil {
		t.Fatalf("v1 completion file: %v", err)
	}
	tr := text.Conversation().Transcript()
	if len(tr) != 4 || tr[0].Content != "In the beginning" || tr[0].Role != RolePrompt {
		t.Fatalf("v1 completion file loads as %+v", tr)
	}
}

// TestTranscriptFollowsTree: a server client that sends its conversation
// with an earlier message changed starts a branch beside the old one.
func TestTranscriptFollowsTree(t *testing.T) {
	s := open(t, trainedChat(t), Options{Threads: 2, Ctx: 512, Settings: greedy()})
	cv := s.Conversation()
	msgs := func(texts ...string) []chat.Message {
		out := make([]chat.Message, len(texts))
		for i, t := range texts {
			out[i] = chat.Message{Role: RoleUser, Content: t}
			if i%2 == 1 {
				out[i].Role = RoleAssistant
			}
		}
		return out
	}
	in, err := cv.SetTranscript(msgs("hi"))
	if err != nil {
		t.Fatal(err)
	}
	t1 := send(t, s, in)
	in, _ = cv.SetTranscript(msgs("hi", t1.Text, "how are you?"))
	send(t, s, in)
	in, _ = cv.SetTranscript(msgs("hello"))
	send(t, s, in)
	if n := cv.Tree().Leaves(); n != 2 {
		t.Fatalf("%d branches after an edited first message, want 2", n)
	}
	if b := cv.Branch(); len(b) != 2 || b[0].Siblings != 2 {
		t.Fatalf("branch %s", branchText(b))
	}
}

// TestExport writes a two-branch conversation in each format.
func TestExport(t *testing.T) {
	s := open(t, trainedChat(t), Options{Threads: 2, Ctx: 512, Settings: greedy()})
	cv := s.Conversation()
	cv.SetSystem("Be brief.")
	send(t, s, "hello")
	b := cv.Branch()
	if _, err := cv.Edit(context.Background(), b[0].ID, "hi there", func(Event) {}); err != nil {
		t.Fatal(err)
	}
	var one struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	var buf bytes.Buffer
	if err := cv.Export(&buf, ExportJSON, false); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &one); err != nil {
		t.Fatalf("json export: %v\n%s", err, buf.String())
	}
	if len(one.Messages) != 3 || one.Messages[0].Role != "system" || one.Messages[1].Content != "hi there" || one.Messages[2].Role != "assistant" {
		t.Fatalf("json export: %+v", one.Messages)
	}
	buf.Reset()
	if err := cv.Export(&buf, ExportJSONL, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("jsonl --all: %d lines, want 2 branches:\n%s", len(lines), buf.String())
	}
	for _, l := range lines {
		if err := json.Unmarshal([]byte(l), &one); err != nil || len(one.Messages) != 3 {
			t.Fatalf("jsonl line %q: %v", l, err)
		}
	}
	buf.Reset()
	if err := cv.Export(&buf, ExportMarkdown, true); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if !strings.Contains(md, "## Branch 2 of 2 (in use)") || !strings.Contains(md, "**User**\n\nhello") || !strings.Contains(md, "**System**\n\nBe brief.") {
		t.Fatalf("markdown --all:\n%s", md)
	}
	// The same from the saved file, without the model.
	file := filepath.Join(t.TempDir(), "x.miku")
	if err := s.Files().Save(context.Background(), file, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	var fromFile bytes.Buffer
	if err := ExportFile(&fromFile, file, ExportMarkdown, true); err != nil {
		t.Fatal(err)
	}
	if fromFile.String() != md {
		t.Fatalf("from the file:\n%s\nfrom the session:\n%s", fromFile.String(), md)
	}
	if err := cv.Export(&buf, "html", false); err == nil || !strings.Contains(err.Error(), ExportFormats) {
		t.Fatalf("unknown format: %v", err)
	}
	sum, err := Summarize(file)
	if err != nil || sum.Branches != 2 || sum.Messages != 2 || sum.First != "hi there" {
		t.Fatalf("summary %+v %v", sum, err)
	}
}

// TestRewindAndRefusals: a rewind keeps the messages after it as a
// branch; an edit that cannot fit changes nothing; completion mode has no
// branches.
func TestRewindAndRefusals(t *testing.T) {
	s := open(t, trainedChat(t), Options{Threads: 2, Ctx: 128, Settings: greedy()})
	cv := s.Conversation()
	send(t, s, "hello")
	send(t, s, "how are you?")
	b := cv.Branch()
	if err := cv.Rewind(b[2].ID); err != nil { // before the second message
		t.Fatal(err)
	}
	if got := cv.Branch(); len(got) != 2 {
		t.Fatalf("after rewinding before message 2: %s", branchText(got))
	}
	if n := len(cv.Transcript()); n != 2 {
		t.Fatalf("the engine conversation holds %d messages after the rewind", n)
	}
	send(t, s, "what is your name?")
	if n := cv.Tree().Leaves(); n != 2 {
		t.Fatalf("%d branches after a message sent from a rewind, want 2", n)
	}
	before := branchText(cv.Branch())
	long := strings.Repeat("word ", 400)
	if _, err := cv.Edit(context.Background(), cv.Branch()[0].ID, long, func(Event) {}); err == nil {
		t.Fatal("an edit longer than the window was sent")
	}
	if got := branchText(cv.Branch()); got != before {
		t.Fatalf("a refused edit moved the branch:\n%s\nwas\n%s", got, before)
	}
	if err := cv.Rewind(99); err == nil {
		t.Fatal("rewound to a message that does not exist")
	}
	if _, err := cv.Edit(context.Background(), cv.Branch()[1].ID, "x", func(Event) {}); err == nil {
		t.Fatal("edited a reply as if it were a user message")
	}

	text := open(t, filepath.Join("..", "demo", "kjv-q8_0.gguf"), Options{Threads: 2, Ctx: 256, Settings: greedy()})
	send(t, text, "In the beginning")
	if err := text.Conversation().Switch(0, 1); err != ErrNoBranching {
		t.Fatalf("switch in completion mode: %v", err)
	}
	if len(text.Conversation().Branch()) != 0 {
		t.Fatal("a completion-mode conversation has a branch")
	}
}

// TestDamagedTreeChangesNothing: a file whose tree section does not read
// is refused, and the session is left as it was.
func TestDamagedTreeChangesNothing(t *testing.T) {
	a := open(t, trainedChat(t), Options{Threads: 2, Ctx: 256, Settings: greedy()})
	send(t, a, "hello")
	file := filepath.Join(t.TempDir(), "a.miku")
	if err := a.Files().Save(context.Background(), file, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := miku.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Sections {
		if f.Sections[i].Name == sectionTree {
			f.Sections[i].Data = []byte(`{"nodes":[{"id":0,"parent":-1,"role":"assistant"}],"current":0,"last":[-1],"root_last":0}`)
		}
	}
	data, err := miku.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	set := greedy()
	set.Seed = 99
	b := open(t, trainedChat(t), Options{Threads: 2, Ctx: 256, Settings: set})
	send(t, b, "how are you?")
	before := branchText(b.Conversation().Branch())
	if _, err := b.Files().Load(context.Background(), file, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "conversation tree section") {
		t.Fatalf("a damaged tree loaded: %v", err)
	}
	if got := branchText(b.Conversation().Branch()); got != before || b.Settings().Seed != 99 || b.Files().Path() != "" {
		t.Fatalf("a refused file changed the session: %s (seed %d, file %q)", got, b.Settings().Seed, b.Files().Path())
	}
}
