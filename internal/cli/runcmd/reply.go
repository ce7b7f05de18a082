package runcmd

import (
	"slices"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// replyPrinter turns generated ids into the text `isagi run` prints. A
// harmony reply (gpt-oss) comes in channels whose markers are control
// tokens: they are decoded as text and read by chat.HarmonyReply, and
// only the answer (the final channel) is printed; the chain of thought
// (the analysis channel) is left out, as the TUI and the session's reply
// leave it out.
type replyPrinter struct {
	dec   *tokenizer.Decoder
	hr    *chat.HarmonyReply // nil unless the template is harmony
	stops []int32
	buf   []byte
}

func newReplyPrinter(tok *tokenizer.Tokenizer, harmony, continuation bool, stops []int32) *replyPrinter {
	p := &replyPrinter{stops: stops}
	if harmony {
		p.hr = new(chat.HarmonyReply)
	}
	p.dec = tok.NewDecoder(tokenizer.DecodeOptions{Continuation: continuation, Special: harmony})
	return p
}

// write returns the text token id adds to the reply (valid until the
// next call). A stop token adds none: with control tokens rendered, its
// text ("<|endoftext|>") would otherwise be read as the answer's.
func (p *replyPrinter) write(id int32) []byte {
	if p.hr == nil {
		return p.dec.Write(id)
	}
	if slices.Contains(p.stops, id) {
		return nil
	}
	reply, _ := p.hr.Write(string(p.dec.Write(id)))
	p.buf = append(p.buf[:0], reply...)
	return p.buf
}

// flush returns what was held back at the end of the reply.
func (p *replyPrinter) flush() []byte {
	tail := p.dec.Flush()
	if p.hr == nil {
		return tail
	}
	r1, _ := p.hr.Write(string(tail))
	r2, _ := p.hr.Flush()
	p.buf = append(append(p.buf[:0], r1...), r2...)
	return p.buf
}
