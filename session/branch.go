package session

import (
	"context"
	"fmt"
	"time"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/conversation"
)

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

// Tree is a copy of the whole conversation tree (every branch).
func (cv *Conversation) Tree() *Tree { return cv.tree.Clone() }

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
	served := cv.s.mem.lastServed != nil
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
	cv.s.mem.lastServed = nil
	cv.lags()
}

// record adds a finished turn to the tree (chat mode), with how the reply
// was made.
func (cv *Conversation) record(input string, t *Turn) {
	if !cv.conv.Chat() {
		return
	}
	set := cv.s.set
	made := &Made{Stop: t.Stop, Tokens: t.Tokens, Seed: set.Seed, Temperature: set.Temperature, Rank: set.Rank,
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
// what a saved file holds), else text.
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
