package grammar

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
