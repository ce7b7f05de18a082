package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/conversation"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// Conversation is the conversation part of a Session: the messages, kept
// as a tree of branches (see tree.go), and the engine conversation of the
// branch in use, which fits the prompt into the window and reuses the KV
// cache.
type Conversation struct {
	s    *Session
	conv *conversation.Conversation // the branch in use: messages, or the running text in completion mode
	tree *Tree                      // every branch (chat mode)

	lastInput string // the last message sent, for Regenerate
	// next is the message SetTranscript ended with when it is not a
	// plain user message (tool results, or a message with extra keys):
	// the next Send answers it whole, not a user message of its text.
	next *chat.Message

	// convTok is how many tokens the conversation is as the model reads
	// it, for when the KV cache does not hold all of it: a loaded file's
	// conversation, an exchange served from memory, a conversation kept
	// through a reset of the cache are computed only at the next turn, but
	// they fill the window from then on, and ContextUsed says so.
	// convStale says the conversation changed since it was counted: it is
	// counted again at the next ContextUsed (once per change, not per
	// frame of the TUI). A decoded turn leaves the cache holding the
	// conversation and sets both to zero: the cache's own length is exact.
	convTok   int
	convStale bool
}

// newConversation is the conversation part of s, empty, rendered with
// tmpl (nil: completion mode).
func newConversation(s *Session, tmpl *chat.Template) *Conversation {
	return &Conversation{s: s, conv: conversation.New(s.tok, tmpl), tree: NewTree()}
}

// BranchMessage is one message of the branch in use, with its place among
// its siblings: the UI's ‹ Sibling+1/Siblings › marker.
type BranchMessage struct {
	Node
	Sibling  int // its index among its siblings, from 0
	Siblings int // how many there are (1: no other version)
}

// Branch is the branch in use, first message first (chat mode; completion
// mode has none: see Transcript).
func (cv *Conversation) Branch() []BranchMessage {
	path := cv.tree.Branch()
	out := make([]BranchMessage, len(path))
	for i, n := range path {
		ids, at := cv.tree.Siblings(n.ID)
		out[i] = BranchMessage{Node: n, Sibling: at, Siblings: len(ids)}
	}
	return out
}

// UserMessage is the user's n-th message (from 1) in branch, as people
// count their messages: /edit N, /branch N, run --edit N.
func UserMessage(branch []BranchMessage, n int) (BranchMessage, bool) {
	for _, m := range branch {
		if m.Role == RoleUser {
			if n--; n == 0 {
				return m, true
			}
		}
	}
	return BranchMessage{}, false
}

// Tree is a copy of the whole conversation tree (every branch).
func (cv *Conversation) Tree() *Tree { return cv.tree.Clone() }

// ForgetBranches empties the tree, keeping the engine conversation and
// the KV cache: a server's stateless requests set a whole conversation
// each time (SetTranscript) and keep no history, so their pooled
// conversation must not grow a tree of every client's messages.
func (cv *Conversation) ForgetBranches() { cv.tree = NewTree() }

// Switch moves to another version of message id: the sibling delta steps
// away (wrapping around; -1 the previous, +1 the next), with the branch
// that follows it as it was left. The KV cache keeps what the two
// branches share; the next turn computes the rest.
func (cv *Conversation) Switch(id, delta int) error {
	if !cv.conv.Chat() {
		return ErrNoBranching
	}
	if _, err := cv.tree.switchTo(id, delta); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	cv.restore()
	return nil
}

// Rewind makes the conversation end at message id: after a reply, the
// conversation goes on from it; at a user message, it ends before it (the
// message is taken back, as an edit does). -1 rewinds to the start. The
// messages after it stay in the tree, on a branch the next message leaves.
func (cv *Conversation) Rewind(id int) error {
	if !cv.conv.Chat() {
		return ErrNoBranching
	}
	if err := cv.tree.rewind(id); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	cv.restore()
	return nil
}

// Edit replaces user message id with text and answers it: the old message
// and the branch after it stay, as a sibling (Switch goes back to them).
// The KV cache is reused up to the edited message.
func (cv *Conversation) Edit(ctx context.Context, id int, text string, emit func(Event)) (Turn, error) {
	if !cv.conv.Chat() {
		return Turn{}, ErrNoBranching
	}
	n, ok := cv.tree.Node(id)
	if !ok || n.Role != RoleUser {
		return Turn{}, fmt.Errorf("session: message %d is not one of the user's messages", id)
	}
	old := cv.tree.Current()
	if err := cv.tree.rewind(n.Parent); err != nil {
		return Turn{}, fmt.Errorf("session: %w", err)
	}
	cv.restore()
	turn, err := cv.s.send(ctx, text, sendNormal, emit)
	if err != nil && cv.tree.Current() == n.Parent {
		// Nothing was added (the message does not fit): back where it was.
		_ = cv.tree.rewind(old)
		cv.restore()
	}
	return turn, err
}

// regenerate is Regenerate in chat mode: the reply at the end of the
// branch gets a sibling.
func (cv *Conversation) regenerate(ctx context.Context, emit func(Event)) (Turn, error) {
	reply, ok := cv.tree.Node(cv.tree.Current())
	if !ok || reply.Role != RoleAssistant {
		return Turn{}, fmt.Errorf("session: no reply to regenerate")
	}
	msg, _ := cv.tree.Node(reply.Parent)
	_, _, served := cv.s.mem.last()
	if err := cv.tree.rewind(msg.Parent); err != nil {
		return Turn{}, fmt.Errorf("session: %w", err)
	}
	cv.restore()
	if served {
		// The answer it replaces was served from memory: it is no longer
		// this conversation's.
		cv.s.mem.dropServed()
	}
	turn, err := cv.s.send(ctx, msg.Content, sendForce, emit)
	if err != nil && cv.tree.Current() == msg.Parent {
		_ = cv.tree.rewind(reply.ID)
		cv.restore()
	}
	return turn, err
}

// restore makes the engine conversation the branch in use (the system
// message kept) and clears what belonged to the turn before: a
// regeneration applies to the branch's own last reply.
func (cv *Conversation) restore() {
	rec := cv.conv.Record()
	var msgs []chat.Message
	if cv.conv.HasSystem() {
		msgs = append(msgs, rec.Messages[0])
	}
	for _, n := range cv.tree.Branch() {
		msgs = append(msgs, chat.Message{Role: n.Role, Content: n.Content})
	}
	cv.conv.Restore(conversation.Record{Messages: msgs})
	cv.lastInput = ""
	cv.s.mem.forgetLast()
	cv.lags()
}

// record adds a finished turn to the tree (chat mode), with how the reply
// was made.
func (cv *Conversation) record(input string, t *Turn) {
	if !cv.conv.Chat() {
		return
	}
	set := cv.s.set
	made := &Made{Stop: t.Stop, Tokens: t.Tokens, Seed: t.Seed, Temperature: set.Temperature, Rank: set.Rank,
		Snipe: set.Snipe, OGDAlpha: set.OGDAlpha, KVKeep: set.KVKeep, Draft: set.Draft}
	if g := t.Geometry; g != nil {
		teh, peak := g.Reply.Overall, g.Peak
		made.TEH, made.TEHPeak = &teh, &peak
	}
	if t.COG != nil {
		made.Memory = t.COG.Decision
	}
	cv.tree.commit(input, cv.lastReply(t.Text), made, time.Now())
}

// lastReply is the reply as the engine conversation kept it (valid UTF-8,
// space trimmed in chat mode: what a saved file holds), else text.
func (cv *Conversation) lastReply(text string) string {
	rec := cv.conv.Record()
	if n := len(rec.Messages); n > 0 && rec.Messages[n-1].Role == RoleAssistant {
		return rec.Messages[n-1].Content
	}
	return text
}

// branchNodes is the chat messages msgs (no system message) as tree
// nodes, for Tree.follow.
func branchNodes(msgs []chat.Message) []Node {
	out := make([]Node, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == "system" {
			continue
		}
		out = append(out, Node{Role: m.Role, Content: m.Content})
	}
	return out
}

// Regenerate answers the last message again by generating, even when the
// manifold would serve it from memory; the new answer replaces the stored
// one. In chat mode the old reply stays in the tree as a sibling of the
// new one (Switch goes back to it), and the KV cache is reused up to the
// reply; in completion mode only a turn served from memory can be taken
// back out of the running text.
func (cv *Conversation) Regenerate(ctx context.Context, emit func(Event)) (Turn, error) {
	s := cv.s
	if cv.conv.Chat() {
		return cv.regenerate(ctx, emit)
	}
	input, ok := cv.popLast()
	if !ok {
		return Turn{}, fmt.Errorf("session: no turn to regenerate")
	}
	return s.send(ctx, input, sendForce, emit)
}

// popLast removes the last user message and the replies after it
// and returns the message.
func (cv *Conversation) popLast() (string, bool) {
	s := cv.s
	cv.lags()
	if !cv.conv.Chat() {
		// Completion mode keeps one running text: only a turn served from
		// memory is known exactly enough (its input and answer) to take
		// back out of it.
		input, answer, served := s.mem.last()
		if !served {
			return "", false
		}
		in, ok := cv.conv.PopExchange(input, answer)
		if ok {
			s.mem.takeBackLast()
		}
		return in, ok
	}
	if cv.lastInput == "" {
		return "", false
	}
	in, ok := cv.conv.PopExchange("", "")
	if _, _, served := s.mem.last(); ok && served {
		s.mem.takeBackLast()
	}
	return in, ok
}

// Export writes the branch in use — or with all, every branch of the tree
// — in format (ExportMarkdown, ExportJSON, ExportJSONL). JSON is OpenAI's
// messages format, {"messages":[{"role":…,"content":…}]}, so that other
// tools read it; with all it is {"current":i,"conversations":[…]}. JSONL
// is one such conversation per line, as fine-tuning files are. Markdown
// is for people: each branch a section when all. The system message comes
// first in every branch. A completion-mode conversation is one branch: the
// user's inputs and the model's continuations of the running text.
func (cv *Conversation) Export(w io.Writer, format string, all bool) error {
	src := exportSource{name: cv.s.info.Name}
	if cv.conv.HasSystem() {
		src.system = cv.conv.Record().Messages[0].Content
	}
	if cv.conv.Chat() {
		src.tree = cv.tree
	} else {
		src.text = cv.conv.Transcript()
	}
	return export(w, format, all, src)
}

// SetTranscript replaces the conversation with msgs and returns the last
// message's text, which the caller sends. In chat mode the roles are
// system, user and assistant (a system message first if any) and the last
// must be the user's; in completion mode (no chat template) the messages'
// texts are one running text, continued after the last. The KV cache is
// kept: the next Send computes only where the new prompt departs from it.
func (cv *Conversation) SetTranscript(msgs []chat.Message) (string, error) {
	s := cv.s
	if len(msgs) == 0 {
		return "", errors.New("no messages")
	}
	last := msgs[len(msgs)-1]
	// The cache is kept and the next Send refits it, so ContextUsed reads
	// what the cache holds until then: a count of the new transcript would
	// tokenize it once more on every request of a server (which sets one
	// per request and asks ContextUsed only for the window), for a figure
	// no one shows before the Send. An older count (a loaded file's) must
	// not outlive the conversation it counted.
	cv.convTok, cv.convStale = 0, false
	if !cv.conv.Chat() {
		var text strings.Builder
		var parts []chat.Message
		for i, m := range msgs[:len(msgs)-1] {
			text.WriteString(m.Content)
			role := conversation.RolePrompt
			if m.Role == "assistant" {
				role = conversation.RoleContinuation
			}
			if m.Content != "" {
				parts = append(parts, chat.Message{Role: role, Content: msgs[i].Content})
			}
		}
		cv.conv.Restore(conversation.Record{Text: text.String(), Parts: parts})
		return last.Content, nil
	}
	if last.Role != "user" && last.Role != "tool" {
		return "", ErrLastNotUser
	}
	for i, m := range msgs {
		switch m.Role {
		case "user", "assistant", "tool":
		case "system":
			if i != 0 {
				return "", fmt.Errorf("message %d: a system message must come first", i)
			}
		default:
			return "", fmt.Errorf("message %d: unknown role %q (system, user, assistant or tool)", i, m.Role)
		}
	}
	cv.next = nil
	if last.Role != "user" || len(last.Extra) > 0 {
		m := last
		cv.next = &m
	}
	cv.conv.Restore(conversation.Record{Messages: slices.Clone(msgs[:len(msgs)-1])})
	// The tree follows: a client that edited an earlier message, or sends
	// the conversation again to regenerate, starts a branch beside the one
	// it left. Messages that do not alternate (two of the user's in a row)
	// do not fit a tree of turns: it starts again from them.
	if !cv.tree.follow(branchNodes(msgs[:len(msgs)-1]), time.Now()) {
		cv.tree = NewTree()
	}
	if msgs[0].Role == "system" {
		s.set.System = msgs[0].Content
	} else {
		s.set.System = ""
	}
	return last.Content, nil
}

// PromptTokens is how many tokens the prompt of sending input now would
// be, with nothing dropped or trimmed; nothing changes.
func (cv *Conversation) PromptTokens(input string) (int, error) {
	s := cv.s
	c := conversation.New(s.tok, cv.conv.Template())
	c.Restore(cv.conv.Record())
	c.SetTools(cv.conv.Tools())
	p, err := c.AddMessage(cv.message(input), "", math.MaxInt32, 0)
	if err != nil {
		return 0, err
	}
	return len(p.IDs), nil
}

// CompletionTokens is how many tokens Complete's prompt for text would be.
func (cv *Conversation) CompletionTokens(text string) (int, error) {
	s := cv.s
	c := conversation.New(s.tok, nil)
	p, err := c.Add(text, "", math.MaxInt32, 0)
	if err != nil {
		return 0, err
	}
	return len(p.IDs), nil
}

// Transcript is the conversation so far, for display: chat messages, or in
// completion mode the user's inputs and the model's continuations
// (RolePrompt, RoleContinuation) — the running text as one "text" entry
// for a file saved before they were kept.
func (cv *Conversation) Transcript() []chat.Message { return cv.conv.Transcript() }

// ContextUsed is how many tokens of the context window the conversation
// fills, and the window's size: what the KV cache holds, or, when the
// cache lags the conversation (a session just loaded, an answer served
// from memory, the cache reset by a setting), what the conversation will
// occupy at the next turn — a resumed conversation does not read 0.
func (cv *Conversation) ContextUsed() (used, limit int) {
	s := cv.s
	if cv.convStale {
		cv.convTok, cv.convStale = cv.tokens(), false
	}
	// The larger of the two, not their sum: the cache holds a prefix of
	// the conversation. The history holds the last sampled token too,
	// which is not in the cache yet: a reply that filled the window would
	// read 257/256 without the cap, and so would a loaded conversation
	// longer than this session's window (the next turn drops or trims it).
	return min(max(len(s.gen.History()), cv.convTok), s.st.MaxPos()), s.st.MaxPos()
}

// lags notes that the conversation changed without the KV cache
// following it (or the cache was emptied with the conversation kept):
// ContextUsed counts the conversation again.
func (cv *Conversation) lags() { cv.convStale = true }

// holds notes that a decoded turn left the KV cache holding the
// conversation: ContextUsed reads the cache again.
func (cv *Conversation) holds() { cv.convTok, cv.convStale = 0, false }

// tokens is how many tokens the conversation is as the next
// turn's prompt starts: the chat messages through the template (without
// the header that opens a reply), or the running text in completion mode.
// A conversation with nothing but a system message counts 0, as the cache
// of a fresh conversation does; so does one that does not render (the
// next turn says why), leaving the cache's count.
func (cv *Conversation) tokens() int {
	s := cv.s
	rec := cv.conv.Record()
	tmpl := cv.conv.Template()
	if tmpl == nil {
		if rec.Text == "" {
			return 0
		}
		ids, err := s.tok.Encode(rec.Text, tokenizer.EncodeOptions{AddSpecial: true})
		if err != nil {
			return 0
		}
		return len(ids)
	}
	if !slices.ContainsFunc(rec.Messages, func(m chat.Message) bool { return m.Role != "system" }) {
		return 0
	}
	p, err := tmpl.Render(rec.Messages, chat.Options{})
	if err != nil {
		return 0
	}
	ids, err := s.tok.EncodePrompt(p.Text, p.User, tokenizer.EncodeOptions{})
	if err != nil {
		return 0
	}
	return len(ids)
}

// SetSystem sets (or, with "", removes) the system message of the
// conversation; it applies from the next turn.
func (cv *Conversation) SetSystem(text string) {
	s := cv.s
	s.set.System = text
	cv.conv.SetSystem(text)
	cv.lags()
}

// What the session and the other parts ask of the conversation.

// chat reports whether the conversation is in chat mode (a template
// renders it), not a running text.
func (cv *Conversation) chat() bool { return cv.conv.Chat() }

// template is the chat template the conversation renders with (nil in
// completion mode).
func (cv *Conversation) template() *chat.Template { return cv.conv.Template() }

// hasSystem reports whether the conversation has a system message.
func (cv *Conversation) hasSystem() bool { return cv.conv.HasSystem() }

// sending notes input as the message a turn is about to answer, for
// Regenerate.
func (cv *Conversation) sending(input string) { cv.lastInput = input }

// setTools offers tools from the next prompt on (nil: none); a
// conversation in completion mode has nothing to show them in.
func (cv *Conversation) setTools(tools []chat.Tool) {
	if cv.conv.Chat() {
		cv.conv.SetTools(tools)
	}
}

// offersTools reports whether tools are offered.
func (cv *Conversation) offersTools() bool { return len(cv.conv.Tools()) > 0 }

// add adds input (with augment, the memory's earlier answer shown, or "")
// and fits the prompt into window tokens with reserve left for the reply.
func (cv *Conversation) add(input, augment string, window, reserve int) (conversation.Prompt, error) {
	m := cv.message(input)
	cv.next = nil
	return cv.conv.AddMessage(m, augment, window, reserve)
}

// message is the message a turn sending input answers: the one
// SetTranscript ended with, when input is its text, or the user's.
func (cv *Conversation) message(input string) chat.Message {
	if cv.next != nil && cv.next.Content == input {
		return *cv.next
	}
	return chat.Message{Role: "user", Content: input}
}

// addReply adds a decoded reply.
func (cv *Conversation) addReply(reply string) { cv.conv.AddReply(reply) }

// addExchange adds an exchange nothing was decoded for (an answer served
// from memory): the cache lacks it until the next turn, but the
// conversation holds it.
func (cv *Conversation) addExchange(input, answer string) {
	cv.conv.AddExchange(input, answer)
	cv.lags()
}

// clear forgets the messages (the system message stays), the tree and the
// last message sent.
func (cv *Conversation) clear() {
	cv.conv.Clear()
	cv.tree = NewTree()
	cv.lastInput = ""
}

// snapshot is the engine conversation's messages as they are now, for
// rollback: the tree is not part of it.
func (cv *Conversation) snapshot() conversation.Record { return cv.conv.Record() }

// rollback puts back the messages of a snapshot.
func (cv *Conversation) rollback(rec conversation.Record) { cv.conv.Restore(rec) }

// clearMessages forgets the engine conversation's messages (the system
// message stays), keeping the tree: a step of an exploration chain
// starts from nothing and is rolled back after.
func (cv *Conversation) clearMessages() { cv.conv.Clear() }

// asText sets an empty completion-mode conversation in place of this one
// until back is called: Complete continues raw text whatever the
// template, and leaves the conversation as it was.
func (cv *Conversation) asText() (back func()) {
	saved := cv.conv
	cv.conv = conversation.New(cv.s.tok, nil)
	return func() { cv.conv = saved }
}

// savedTree is the tree as a session file stores it.
func (cv *Conversation) savedTree() savedTree { return cv.tree.saved() }

// load takes a session file's conversation: its messages and its tree,
// whose branch in use it follows when the tree has one (the conversation
// section may have dropped the oldest turns).
func (cv *Conversation) load(rec conversation.Record, tree *Tree) {
	cv.conv.Restore(rec)
	cv.tree = tree
	if tree.Len() > 0 {
		cv.restore()
	}
	cv.lastInput = ""
}
