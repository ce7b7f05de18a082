// Package conversation is the engine's part of a conversation: the
// messages (or, for a model without a chat template, the running text),
// rendering them through the template, fitting the prompt into the
// context window by dropping the oldest turns, and reusing what a
// generator's KV cache already holds so that a turn computes only the
// tokens that are new.
//
// It knows nothing of settings, compression, geometry or files: the
// application layer (session) owns a Conversation and saves what Record
// returns.
package conversation

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// Roles of the completion-mode parts (Record.Parts): the user's inputs and
// the model's continuations of the running text.
const (
	RolePrompt       = "prompt"
	RoleContinuation = "continuation"
)

// ErrTooLong is returned when one message cannot fit the context window
// even with every earlier turn dropped.
var ErrTooLong = errors.New("message does not fit the context window")

// augmentIntro introduces an earlier answer shown for one turn only.
const augmentIntro = "An earlier answer to a similar question, for reference:\n"

// Conversation is one conversation's text. It is not safe for concurrent
// use.
type Conversation struct {
	tok  *tokenizer.Tokenizer
	tmpl *chat.Template // nil: completion mode
	rec  Record
	// tools are the functions offered to the model, rendered by the
	// template's own tools branch or, for a template without one
	// (chat.ToolsGeneric), described after the system message.
	tools []chat.Tool
}

// Record is a conversation as it is saved: the chat messages (system
// message first, if any), or in completion mode the running text and the
// parts it is made of (RolePrompt, RoleContinuation), so a resumed session
// shows who wrote what.
type Record struct {
	Messages []chat.Message
	Text     string
	Parts    []chat.Message
}

// New starts an empty conversation; tmpl nil makes it completion mode
// (the model continues one running text).
func New(tok *tokenizer.Tokenizer, tmpl *chat.Template) *Conversation {
	return &Conversation{tok: tok, tmpl: tmpl}
}

// Chat reports whether the conversation is chat (has a template) rather
// than completion.
func (c *Conversation) Chat() bool { return c.tmpl != nil }

// Template is the chat template, or nil in completion mode.
func (c *Conversation) Template() *chat.Template { return c.tmpl }

// Record returns a copy of the conversation as it is saved.
func (c *Conversation) Record() Record {
	return Record{Messages: slices.Clone(c.rec.Messages), Text: c.rec.Text, Parts: slices.Clone(c.rec.Parts)}
}

// Restore replaces the conversation with r (a saved one, or a Record taken
// earlier).
func (c *Conversation) Restore(r Record) {
	c.rec = Record{Messages: slices.Clone(r.Messages), Text: r.Text, Parts: slices.Clone(r.Parts)}
}

// Clear forgets the conversation; the system message stays.
func (c *Conversation) Clear() {
	c.rec.Messages = slices.DeleteFunc(c.rec.Messages, func(m chat.Message) bool { return m.Role != "system" })
	c.rec.Text, c.rec.Parts = "", nil
}

// HasSystem reports whether the conversation starts with a system message.
func (c *Conversation) HasSystem() bool {
	return len(c.rec.Messages) > 0 && c.rec.Messages[0].Role == "system"
}

// SetSystem sets (or, with "", removes) the system message.
func (c *Conversation) SetSystem(text string) {
	c.rec.Messages = slices.DeleteFunc(c.rec.Messages, func(m chat.Message) bool { return m.Role == "system" })
	if text != "" {
		c.rec.Messages = slices.Insert(c.rec.Messages, 0, chat.Message{Role: "system", Content: text})
	}
}

// Prompt is a turn's prompt as token ids, and what fitting it cost.
type Prompt struct {
	IDs []int32
	// Dropped is, in chat mode, how many of the oldest turns were dropped
	// to make room.
	Dropped int
	// Trimmed is, in completion mode, how many tokens at the start of the
	// running text the model does not see this turn.
	Trimmed int
}

// Add appends input — a user message in chat mode, text to continue in
// completion mode — and returns the prompt, fitted so that it and a reply
// of reserve tokens fit a window of window positions. In chat mode the
// oldest turns are dropped (from the conversation, since they no longer
// reach the model); in completion mode the start of the text is cut from
// the prompt only. augment, when set, is an earlier answer the model is
// shown with this message only (chat mode): the conversation keeps the
// message as the user wrote it. A message that cannot fit even alone is
// an error wrapping ErrTooLong and changes nothing.
func (c *Conversation) Add(input, augment string, window, reserve int) (Prompt, error) {
	return c.AddMessage(chat.Message{Role: "user", Content: input}, augment, window, reserve)
}

// SetTools offers tools to the model from the next prompt on (nil: none).
func (c *Conversation) SetTools(tools []chat.Tool) { c.tools = slices.Clone(tools) }

// Tools are the tools offered.
func (c *Conversation) Tools() []chat.Tool { return c.tools }

// render renders msgs with the tools offered.
func (c *Conversation) render(msgs []chat.Message) (chat.Prompt, error) {
	opts := chat.Options{AddGenerationPrompt: true}
	if len(c.tools) > 0 {
		if c.tmpl.ToolSyntax() == chat.ToolsGeneric {
			// The template cannot show them: the system message does.
			desc := chat.ToolSystemPrompt(c.tools)
			msgs = slices.Clone(msgs)
			if len(msgs) > 0 && msgs[0].Role == "system" {
				msgs[0].Content += "\n\n" + desc
			} else {
				msgs = slices.Insert(msgs, 0, chat.Message{Role: "system", Content: desc})
			}
		} else {
			opts.Vars = map[string]any{"tools": chat.ToolsVar(c.tools)}
		}
	}
	return c.tmpl.Render(msgs, opts)
}

// AddMessage is Add (chat mode) for a message of any role: a user's, or
// the results of tools the model called (role "tool"), which the reply
// then reads.
func (c *Conversation) AddMessage(m chat.Message, augment string, window, reserve int) (Prompt, error) {
	if c.tmpl == nil {
		return c.addText(m.Content, window, reserve)
	}
	input := m.Content
	// Work on a copy: a message that cannot fit even alone must leave the
	// conversation as it was, not stripped of the turns dropped while
	// trying.
	msgs := append(slices.Clip(c.rec.Messages), m)
	dropped := 0
	for {
		shown := msgs
		if augment != "" {
			shown = slices.Clone(msgs)
			shown[len(shown)-1].Content = augmentIntro + augment + "\n\n" + input
		}
		p, err := c.render(shown)
		if err != nil {
			return Prompt{}, err
		}
		ids, err := c.tok.EncodePrompt(p.Text, p.User, tokenizer.EncodeOptions{})
		if err != nil {
			return Prompt{}, err
		}
		if len(ids)+reserve <= window {
			c.rec.Messages = msgs
			return Prompt{IDs: ids, Dropped: dropped}, nil
		}
		// Drop the oldest non-system turn: a user message and the replies
		// that follow it.
		first := 0
		if len(msgs) > 0 && msgs[0].Role == "system" {
			first = 1
		}
		if first >= len(msgs)-1 { // only the new message is left
			return Prompt{}, fmt.Errorf("conversation: %w: it is %d tokens and the window holds %d, %d of them kept for the reply",
				ErrTooLong, len(ids), window, reserve)
		}
		end := first + 1
		for end < len(msgs)-1 && msgs[end].Role != "user" {
			end++
		}
		msgs = append(msgs[:first:first], msgs[end:]...)
		dropped++
	}
}

// addText appends input to the running text and tokenises it, keeping the
// most recent tokens that leave room for the reply.
func (c *Conversation) addText(input string, window, reserve int) (Prompt, error) {
	text := c.rec.Text + input
	ids, err := c.tok.Encode(text, tokenizer.EncodeOptions{AddSpecial: true})
	if err != nil {
		return Prompt{}, err
	}
	if len(ids) == 0 && c.tok.BOS() >= 0 {
		ids = []int32{c.tok.BOS()}
	}
	trimmed := 0
	if keep := window - reserve; len(ids) > keep {
		trimmed = len(ids) - max(keep, 0)
		ids = ids[trimmed:]
	}
	if len(ids) == 0 {
		return Prompt{}, fmt.Errorf("conversation: nothing to continue")
	}
	c.rec.Text = text
	if input != "" {
		c.rec.Parts = append(c.rec.Parts, chat.Message{Role: RolePrompt, Content: input})
	}
	return Prompt{IDs: ids, Trimmed: trimmed}, nil
}

// AddReply records the model's reply to the last input. In chat mode it is
// an assistant message (surrounding space trimmed, as templates expect);
// in completion mode it continues the running text as it is.
func (c *Conversation) AddReply(reply string) {
	if c.tmpl == nil {
		c.rec.Text += reply
		if reply != "" {
			c.rec.Parts = append(c.rec.Parts, chat.Message{Role: RoleContinuation, Content: reply})
		}
		return
	}
	c.rec.Messages = append(c.rec.Messages, chat.Message{Role: "assistant", Content: strings.TrimSpace(reply)})
}

// AddExchange records an input and its answer without a prompt (an answer
// served from memory).
func (c *Conversation) AddExchange(input, answer string) {
	if c.tmpl == nil {
		c.rec.Text += input + answer
		c.rec.Parts = append(c.rec.Parts, chat.Message{Role: RolePrompt, Content: input}, chat.Message{Role: RoleContinuation, Content: answer})
		return
	}
	c.rec.Messages = append(c.rec.Messages, chat.Message{Role: "user", Content: input}, chat.Message{Role: "assistant", Content: answer})
}

// PopExchange takes the last exchange back out and returns its input. In
// chat mode that is the last user message and the replies after it. A
// completion keeps one running text, so there only the exchange given
// (input, answer: one known exactly, such as an answer served from
// memory) can be taken back, when the text ends with it.
func (c *Conversation) PopExchange(input, answer string) (string, bool) {
	if c.tmpl == nil {
		if input == "" || !strings.HasSuffix(c.rec.Text, input+answer) {
			return "", false
		}
		c.rec.Text = strings.TrimSuffix(c.rec.Text, input+answer)
		if n := len(c.rec.Parts); n >= 2 && c.rec.Parts[n-2].Content == input && c.rec.Parts[n-1].Content == answer {
			c.rec.Parts = c.rec.Parts[:n-2]
		}
		return input, true
	}
	i := len(c.rec.Messages) - 1
	for i >= 0 && c.rec.Messages[i].Role != "user" {
		i--
	}
	if i < 0 {
		return "", false
	}
	in := c.rec.Messages[i].Content
	c.rec.Messages = slices.Clone(c.rec.Messages[:i])
	return in, true
}

// Transcript is the conversation for display: chat messages, or in
// completion mode the parts (RolePrompt, RoleContinuation) — the running
// text as one "text" entry when the parts do not account for it (a file
// saved before they were kept).
func (c *Conversation) Transcript() []chat.Message {
	if c.tmpl != nil {
		return slices.Clone(c.rec.Messages)
	}
	if c.rec.Text == "" {
		return nil
	}
	var joined strings.Builder
	for _, p := range c.rec.Parts {
		joined.WriteString(p.Content)
	}
	if joined.String() == c.rec.Text {
		return slices.Clone(c.rec.Parts)
	}
	// Show it whole rather than mislabel any of it.
	return []chat.Message{{Role: "text", Content: c.rec.Text}}
}

// Reuse rewinds g to where ids departs from what its KV cache holds and
// returns the tokens still to feed. When ids is entirely cached its last
// token is fed again, for fresh logits.
func Reuse(g *generate.Generator, ids []int32) []int32 {
	hist := g.History()
	common := 0
	for common < len(hist) && common < len(ids) && hist[common] == ids[common] {
		common++
	}
	if common == len(ids) && common > 0 {
		common--
	}
	if common < g.State().TruncateFloor() {
		// An eviction since then chose which earlier entries to keep:
		// they are no prefix to rewind to, so the prompt is read again.
		common = 0
	}
	g.Truncate(common)
	return ids[common:]
}
