package chat

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// OpenAI's harmony format (gpt-oss) writes every message as
//
//	<|start|>{role}[ to={recipient}]<|channel|>{channel}[ <|constrain|>{type}]<|message|>{text}<|end|>
//
// and a reply is a run of such messages after the prompt's bare
// "<|start|>assistant": usually the chain of thought on the analysis
// channel, then the answer on the final channel, ended by <|return|> (or
// <|call|> for a tool call). <|end|> only closes one message, so it must
// not end the reply.
const (
	harmonyStart     = "<|start|>"
	harmonyChannel   = "<|channel|>"
	harmonyMessage   = "<|message|>"
	harmonyEnd       = "<|end|>"
	harmonyReturn    = "<|return|>"
	harmonyCall      = "<|call|>"
	harmonyConstrain = "<|constrain|>"
)

// harmonyMarkers are the texts that structure a harmony reply.
var harmonyMarkers = [...]string{harmonyStart, harmonyChannel, harmonyMessage, harmonyEnd, harmonyReturn, harmonyCall, harmonyConstrain}

// Harmony reports whether the template writes OpenAI's harmony format
// (gpt-oss): replies then come in channels, to be read with a
// HarmonyReply. It is llama.cpp's test: the template mentions <|channel|>.
func (t *Template) Harmony() bool { return strings.Contains(t.src, harmonyChannel) }

// harmonyStops adjusts ids, the stop tokens of a harmony template: the
// reply ends with <|return|> or <|call|>, and <|end|>, which closes the
// analysis message before the final one, must not stop it (llama.cpp
// drops <|end|> from the end-of-generation set for the same reason).
func harmonyStops(ids []int32, tk *tokenizer.Tokenizer) []int32 {
	if end, ok := tk.TokenID(harmonyEnd); ok {
		ids = slices.DeleteFunc(ids, func(id int32) bool { return id == end })
	}
	for _, s := range []string{harmonyReturn, harmonyCall} {
		if id, ok := tk.TokenID(s); ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Route says where the text of a harmony message goes.
type Route uint8

const (
	// RouteReply is the answer: the final channel, and commentary
	// addressed to nobody (a preamble the user may see).
	RouteReply Route = iota
	// RouteThinking is the chain of thought: the analysis channel.
	RouteThinking
	// RouteTool is a message addressed to a tool (" to=functions.x"):
	// arguments, shown to neither.
	RouteTool
)

// route reads a message header (what lies between <|start|> and
// <|message|>: role, recipient, channel, constraint).
func route(header string) Route {
	if strings.Contains(header, " to=") && !strings.Contains(header, " to=assistant") {
		return RouteTool
	}
	// The last <|channel|> counts: gpt-oss-20b sometimes writes a stray
	// "<|channel|>commentary" before the real one (llama.cpp skips it too).
	at := strings.LastIndex(header, harmonyChannel)
	if at < 0 {
		return RouteReply
	}
	ch := header[at+len(harmonyChannel):]
	if i := strings.IndexAny(ch, " <"); i >= 0 {
		ch = ch[:i]
	}
	if ch == "analysis" {
		return RouteThinking
	}
	return RouteReply
}

// maxHeader bounds a message header: a model that writes more without
// <|message|> is not following the format, and what it wrote is taken as
// the reply.
const maxHeader = 512

// HarmonyReply splits a harmony reply, streamed as decoded text (control
// tokens rendered, tokenizer.DecodeOptions.Special), into the answer and
// the chain of thought. Markers split across writes are held back until
// they are whole. The zero value is ready; it is not safe for concurrent
// use.
type HarmonyReply struct {
	// Calls shows each message to a function (" to=functions.NAME") in
	// the answer as a Hermes call, <tool_call>{"name": NAME,
	// "arguments": TEXT}</tool_call>, for a ToolReader of ToolsHermes to
	// read: set it when the conversation offers tools.
	Calls    bool
	call     bool   // the current message is such a call
	inBody   bool   // inside a message's text (after <|message|>)
	to       Route  // where the current message's text goes
	header   []byte // the current header so far
	pend     []byte // text that may be the start of a marker
	bodies   int    // messages whose text has begun
	marked   bool   // a marker has been read
	reply    strings.Builder
	thinking strings.Builder
	dr, dt   []byte // this write's output
}

// Write adds the next piece of the reply and returns the answer text and
// the thinking text it completes (either may be empty).
func (h *HarmonyReply) Write(piece string) (reply, thinking string) {
	h.dr, h.dt = h.dr[:0], h.dt[:0]
	buf := append(h.pend, piece...)
	h.pend = h.pend[:0]
	for len(buf) > 0 {
		i := strings.Index(string(buf), "<|")
		if i < 0 {
			// A trailing '<' may begin a marker.
			if buf[len(buf)-1] == '<' {
				h.text(buf[:len(buf)-1])
				h.pend = append(h.pend, '<')
			} else {
				h.text(buf)
			}
			break
		}
		h.text(buf[:i])
		rest := buf[i:]
		m, partial := matchMarker(rest)
		if partial {
			h.pend = append(h.pend, rest...)
			break
		}
		if m == "" { // "<|" that starts no marker: plain text
			h.text(rest[:2])
			buf = rest[2:]
			continue
		}
		h.marker(m)
		buf = rest[len(m):]
	}
	return h.out()
}

// Flush ends the reply and returns what was held back. A reply that never
// opened a message (the model ignored the format) is all answer.
func (h *HarmonyReply) Flush() (reply, thinking string) {
	h.dr, h.dt = h.dr[:0], h.dt[:0]
	pend := h.pend
	h.pend = nil
	h.text(pend)
	h.endCall()
	if !h.inBody && h.bodies == 0 && len(h.header) > 0 {
		h.emit(RouteReply, h.header)
	}
	h.header = h.header[:0]
	return h.out()
}

// Reply is the answer so far: the final channel's text.
func (h *HarmonyReply) Reply() string { return h.reply.String() }

// Thinking is the chain of thought so far: the analysis channel's text.
func (h *HarmonyReply) Thinking() string { return h.thinking.String() }

func (h *HarmonyReply) out() (string, string) {
	var r, t string
	if len(h.dr) > 0 {
		r = string(h.dr)
		h.reply.WriteString(r)
	}
	if len(h.dt) > 0 {
		t = string(h.dt)
		h.thinking.WriteString(t)
	}
	return r, t
}

// text handles text between markers.
func (h *HarmonyReply) text(b []byte) {
	if len(b) == 0 {
		return
	}
	if h.inBody {
		h.emit(h.to, b)
		return
	}
	h.header = append(h.header, b...)
	if len(h.header) > maxHeader {
		// Not a header: the model is writing prose without the format.
		h.inBody, h.to = true, RouteReply
		h.bodies++
		h.emit(RouteReply, h.header)
		h.header = h.header[:0]
	}
}

// Showing reports whether text written now would go to the answer, as far
// as can be told yet: inside a message of the answer, or before the first
// marker (a reply that never uses the format is all answer). A caller
// that reports per token what the reader showed (a server's logprobs)
// asks before and after each token's text.
func (h *HarmonyReply) Showing() bool {
	if h.inBody {
		return h.to == RouteReply
	}
	return !h.marked
}

// marker handles one structural marker.
func (h *HarmonyReply) marker(m string) {
	h.marked = true
	switch m {
	case harmonyMessage:
		if h.inBody {
			// A stray one inside the text is dropped: kept, it could
			// make the reply look like a channel header, which the
			// template refuses to render back.
			return
		}
		h.inBody, h.to = true, route(string(h.header))
		h.bodies++
		if name := functionName(string(h.header)); h.Calls && h.to == RouteTool && name != "" {
			q, _ := json.Marshal(name)
			h.call, h.to = true, RouteReply
			h.emit(RouteReply, []byte(hermesOpen+"\n{\"name\": "+string(q)+", \"arguments\": "))
		}
		h.header = h.header[:0]
	case harmonyEnd, harmonyReturn, harmonyCall:
		// The message ends: what follows is the next header.
		h.endCall()
		h.inBody = false
		h.header = h.header[:0]
	default:
		// <|start|>, <|channel|>, <|constrain|> belong to a header: inside
		// a message's text they begin the next message (the model left
		// out <|end|>), so its channel is read, not shown.
		if h.inBody || m == harmonyStart {
			h.endCall()
			h.inBody = false
			h.header = h.header[:0]
		}
		h.header = append(h.header, m...)
	}
}

// endCall closes a call shown as a Hermes one.
func (h *HarmonyReply) endCall() {
	if h.call {
		h.call = false
		h.emit(RouteReply, []byte("}\n"+hermesClose))
	}
}

// functionName is the function a message header addresses
// (" to=functions.NAME"), or "".
func functionName(header string) string {
	_, rest, ok := strings.Cut(header, " to=functions.")
	if !ok {
		if rest, ok = strings.CutPrefix(header, "to=functions."); !ok {
			return ""
		}
	}
	if i := strings.IndexAny(rest, " <"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

func (h *HarmonyReply) emit(r Route, b []byte) {
	switch r {
	case RouteReply:
		h.dr = append(h.dr, b...)
	case RouteThinking:
		h.dt = append(h.dt, b...)
	}
}

// matchMarker reports the marker b starts with, or partial when b is a
// proper prefix of one (more text may complete it).
func matchMarker(b []byte) (m string, partial bool) {
	for _, mk := range harmonyMarkers {
		if len(b) >= len(mk) {
			if string(b[:len(mk)]) == mk {
				return mk, false
			}
		} else if string(b) == mk[:len(b)] {
			partial = true
		}
	}
	return "", partial
}

// ParseHarmony splits a whole harmony reply (as it follows the prompt's
// "<|start|>assistant") into the answer and the chain of thought.
func ParseHarmony(text string) (reply, thinking string) {
	var h HarmonyReply
	h.Write(text)
	h.Flush()
	return h.Reply(), h.Thinking()
}
