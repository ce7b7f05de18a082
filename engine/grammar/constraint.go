package grammar

import "bytes"

// Constraint adapts a Matcher to a sampler that masks logits
// (engine/generate's Constraint): Mask sets every logit the grammar does
// not allow next to −Inf, Accept advances past the token drawn. Its mask
// is allocated once, so a generation step allocates nothing.
type Constraint struct {
	m    *Matcher
	mask Mask
}

// NewConstraint wraps m.
func NewConstraint(m *Matcher) *Constraint { return &Constraint{m: m, mask: m.NewMask()} }

// Mask sets the logits of the tokens not allowed next to −Inf. Logits past
// the vocabulary (a padded output layer) are never allowed.
func (c *Constraint) Mask(logits []float32) {
	c.m.Allowed(c.mask)
	c.mask.Apply(logits)
}

// Accept advances past tok.
func (c *Constraint) Accept(tok int32) error { return c.m.Accept(tok) }

// Done reports whether the grammar has matched a whole document.
func (c *Constraint) Done() bool { return c.m.Done() }

// LazyConstraint is a Constraint that holds nothing until the text sampled
// so far contains one of its triggers, and from then on holds the rest of
// the reply to its grammar, matched from the trigger on — llama.cpp's lazy
// grammars: a model answering in prose is free, and once it begins a tool
// call ("<tool_call>") the call keeps to the form. A trigger whose text the
// grammar refuses (the token that completed it carried more, and that does
// not fit) leaves the reply free for good: the caller reads whatever
// comes, never an aborted reply. Waiting allocates nothing once its
// buffer has grown to the longest token.
type LazyConstraint struct {
	m        *Matcher
	mask     Mask
	triggers [][]byte
	tail     []byte // the last bytes sampled while waiting
	keep     int    // the longest trigger's length less one
	active   bool
	off      bool
}

// NewLazyConstraint wraps m, idle until one of triggers is sampled. The
// grammar must match from a trigger's first byte.
func NewLazyConstraint(m *Matcher, triggers []string) *LazyConstraint {
	c := &LazyConstraint{m: m, mask: m.NewMask()}
	for _, t := range triggers {
		c.triggers = append(c.triggers, []byte(t))
		c.keep = max(c.keep, len(t)-1)
	}
	c.tail = make([]byte, 0, c.keep+64)
	return c
}

// Mask holds the logits to the grammar once a trigger was sampled.
func (c *LazyConstraint) Mask(logits []float32) {
	if c.active {
		c.m.Allowed(c.mask)
		c.mask.Apply(logits)
	}
}

// Accept advances past tok: the grammar's matcher once active, else the
// search for a trigger.
func (c *LazyConstraint) Accept(tok int32) error {
	switch {
	case c.active:
		return c.m.Accept(tok)
	case c.off:
		return nil
	}
	if tok >= 0 && int(tok) < c.m.v.n {
		c.tail = append(c.tail, c.m.v.token(tok)...)
	}
	at := -1
	for _, t := range c.triggers {
		if i := bytes.Index(c.tail, t); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at >= 0 {
		c.active = true
		if err := c.m.AcceptBytes(c.tail[at:]); err != nil {
			c.active, c.off = false, true
			c.m.Reset()
		}
		c.tail = c.tail[:0]
		return nil
	}
	if len(c.tail) > c.keep {
		c.tail = c.tail[:copy(c.tail, c.tail[len(c.tail)-c.keep:])]
	}
	return nil
}

// Active reports whether a trigger was sampled and the grammar holds the
// reply.
func (c *LazyConstraint) Active() bool { return c.active }
