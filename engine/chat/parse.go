package chat

import (
	"fmt"
	"strings"
)

// Expressions.
type expr interface{}

type (
	litExpr  struct{ v any }
	nameExpr struct{ name string }
	listExpr struct {
		items []expr
		tuple bool
	}
	dictExpr struct{ keys, vals []expr }
	attrExpr struct {
		x    expr
		name string
	}
	indexExpr struct{ x, index expr }
	sliceExpr struct{ x, lo, hi, step expr }
	callExpr  struct {
		fn   expr
		args []expr
		kw   []kwArg
	}
	filterExpr struct {
		x    expr
		name string
		args []expr
		kw   []kwArg
	}
	testExpr struct {
		x      expr
		name   string
		args   []expr
		negate bool
	}
	binExpr struct {
		op   string
		l, r expr
	}
	notExpr  struct{ x expr }
	negExpr  struct{ x expr }
	condExpr struct{ cond, yes, no expr }
	kwArg    struct {
		name string
		v    expr
	}
)

// Statements.
type node interface{}

type (
	textNode   struct{ s string }
	outputNode struct{ x expr }
	ifNode     struct {
		conds  []expr
		bodies [][]node
		els    []node
	}
	forNode struct {
		targets []string
		iter    expr
		filter  expr
		body    []node
		els     []node
	}
	setNode struct {
		targets []string // one name, or a tuple of names
		attr    string   // set ns.attr = …
		x       expr
		body    []node // {% set x %}…{% endset %}
	}
	macroNode struct {
		name     string
		params   []string
		defaults []expr
		body     []node
	}
	breakNode    struct{}
	continueNode struct{}
)

// parser turns segments into a node tree.
type parser struct {
	segs []segment
	pos  int
	// expression state
	toks []token
	tp   int
	line int
}

func parseTemplate(src string) (nodes []node, err error) {
	segs, err := lexTemplate(src)
	if err != nil {
		return nil, err
	}
	p := &parser{segs: segs}
	nodes, end, err := p.parseBody()
	if err != nil {
		return nil, err
	}
	if end != "" {
		return nil, fmt.Errorf("line %d: unexpected {%% %s %%}", p.line, end)
	}
	return nodes, nil
}

// parseBody parses nodes until a block tag that closes the current block;
// it returns that tag's keyword ("" at the end of the template), with the
// tag's tokens loaded for the caller.
func (p *parser) parseBody() ([]node, string, error) {
	var nodes []node
	for p.pos < len(p.segs) {
		s := p.segs[p.pos]
		p.pos++
		p.line = s.line
		switch s.kind {
		case 't':
			nodes = append(nodes, &textNode{s.text})
		case 'v':
			if err := p.load(s.text); err != nil {
				return nil, "", err
			}
			x, err := p.expr()
			if err != nil {
				return nil, "", err
			}
			if err := p.expectEOF(); err != nil {
				return nil, "", err
			}
			nodes = append(nodes, &outputNode{x})
		case 'b':
			if err := p.load(s.text); err != nil {
				return nil, "", err
			}
			kw := p.next()
			if kw.kind != tName {
				return nil, "", p.errf("expected a statement")
			}
			switch kw.s {
			case "elif", "else", "endif", "endfor", "endset", "endmacro", "endgeneration", "endfilter":
				return nodes, kw.s, nil
			}
			n, err := p.statement(kw.s)
			if err != nil {
				return nil, "", err
			}
			if n != nil {
				nodes = append(nodes, n)
			}
		}
	}
	return nodes, "", nil
}

func (p *parser) load(src string) error {
	toks, err := lexExpr(src)
	if err != nil {
		return fmt.Errorf("line %d: %w", p.line, err)
	}
	p.toks, p.tp = toks, 0
	return nil
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("line %d: "+format, append([]any{p.line}, args...)...)
}

func (p *parser) peek() token { return p.toks[p.tp] }
func (p *parser) next() token {
	t := p.toks[p.tp]
	if t.kind != tEOF {
		p.tp++
	}
	return t
}
func (p *parser) isOp(s string) bool   { t := p.peek(); return t.kind == tOp && t.s == s }
func (p *parser) isName(s string) bool { t := p.peek(); return t.kind == tName && t.s == s }
func (p *parser) accept(s string) bool {
	if p.isOp(s) {
		p.tp++
		return true
	}
	return false
}
func (p *parser) expect(s string) error {
	if !p.accept(s) {
		return p.errf("expected %q", s)
	}
	return nil
}
func (p *parser) expectEOF() error {
	if t := p.peek(); t.kind != tEOF {
		return p.errf("unexpected %q", t.s)
	}
	return nil
}
func (p *parser) ident() (string, error) {
	t := p.next()
	if t.kind != tName {
		return "", p.errf("expected a name")
	}
	return t.s, nil
}

func (p *parser) statement(kw string) (node, error) {
	switch kw {
	case "if":
		n := &ifNode{}
		for {
			c, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expectEOF(); err != nil {
				return nil, err
			}
			body, end, err := p.parseBody()
			if err != nil {
				return nil, err
			}
			n.conds = append(n.conds, c)
			n.bodies = append(n.bodies, body)
			switch end {
			case "elif":
				continue
			case "else":
				if n.els, end, err = p.parseBody(); err != nil {
					return nil, err
				}
				if end != "endif" {
					return nil, p.errf("expected endif, got %q", end)
				}
				return n, nil
			case "endif":
				return n, nil
			}
			return nil, p.errf("if without endif")
		}
	case "for":
		n := &forNode{}
		paren := p.accept("(")
		for {
			name, err := p.ident()
			if err != nil {
				return nil, err
			}
			n.targets = append(n.targets, name)
			if !p.accept(",") {
				break
			}
		}
		if paren {
			if err := p.expect(")"); err != nil {
				return nil, err
			}
		}
		if !p.isName("in") {
			return nil, p.errf("expected 'in'")
		}
		p.next()
		var err error
		if n.iter, err = p.orExpr(); err != nil { // no inline if: 'if' filters the loop
			return nil, err
		}
		if p.isName("if") {
			p.next()
			if n.filter, err = p.orExpr(); err != nil {
				return nil, err
			}
		}
		if p.isName("recursive") {
			return nil, p.errf("recursive loops are not supported")
		}
		if err := p.expectEOF(); err != nil {
			return nil, err
		}
		body, end, err := p.parseBody()
		if err != nil {
			return nil, err
		}
		n.body = body
		if end == "else" {
			if n.els, end, err = p.parseBody(); err != nil {
				return nil, err
			}
		}
		if end != "endfor" {
			return nil, p.errf("for without endfor")
		}
		return n, nil
	case "set":
		n := &setNode{}
		for {
			name, err := p.ident()
			if err != nil {
				return nil, err
			}
			n.targets = append(n.targets, name)
			if len(n.targets) == 1 && p.accept(".") {
				if n.attr, err = p.ident(); err != nil {
					return nil, err
				}
				break
			}
			if !p.accept(",") {
				break
			}
		}
		if p.peek().kind == tEOF {
			body, end, err := p.parseBody()
			if err != nil {
				return nil, err
			}
			if end != "endset" {
				return nil, p.errf("set block without endset")
			}
			n.body = body
			return n, nil
		}
		if err := p.expect("="); err != nil {
			return nil, err
		}
		x, err := p.tupleExpr()
		if err != nil {
			return nil, err
		}
		n.x = x
		return n, p.expectEOF()
	case "macro":
		n := &macroNode{}
		var err error
		if n.name, err = p.ident(); err != nil {
			return nil, err
		}
		if err := p.expect("("); err != nil {
			return nil, err
		}
		for !p.accept(")") {
			name, err := p.ident()
			if err != nil {
				return nil, err
			}
			var def expr
			if p.accept("=") {
				if def, err = p.expr(); err != nil {
					return nil, err
				}
			}
			n.params = append(n.params, name)
			n.defaults = append(n.defaults, def)
			if !p.accept(",") {
				if err := p.expect(")"); err != nil {
					return nil, err
				}
				break
			}
		}
		body, end, err := p.parseBody()
		if err != nil {
			return nil, err
		}
		if end != "endmacro" {
			return nil, p.errf("macro without endmacro")
		}
		n.body = body
		return n, nil
	case "break":
		return &breakNode{}, p.expectEOF()
	case "continue":
		return &continueNode{}, p.expectEOF()
	case "generation":
		// transformers' {% generation %} marks assistant text; it renders
		// its body unchanged.
		body, end, err := p.parseBody()
		if err != nil {
			return nil, err
		}
		if end != "endgeneration" {
			return nil, p.errf("generation without endgeneration")
		}
		return &ifNode{conds: []expr{&litExpr{true}}, bodies: [][]node{body}}, nil
	}
	return nil, p.errf("unknown statement %q", kw)
}

// tupleExpr parses "a, b" as a tuple (set x = a, b).
func (p *parser) tupleExpr() (expr, error) {
	x, err := p.expr()
	if err != nil || !p.isOp(",") {
		return x, err
	}
	items := []expr{x}
	for p.accept(",") {
		if p.peek().kind == tEOF {
			break
		}
		y, err := p.expr()
		if err != nil {
			return nil, err
		}
		items = append(items, y)
	}
	return &listExpr{items: items, tuple: true}, nil
}

// expr parses a full expression including the inline if.
func (p *parser) expr() (expr, error) {
	x, err := p.orExpr()
	if err != nil {
		return nil, err
	}
	for p.isName("if") {
		p.next()
		c, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		var no expr
		if p.isName("else") {
			p.next()
			if no, err = p.expr(); err != nil {
				return nil, err
			}
		}
		x = &condExpr{cond: c, yes: x, no: no}
	}
	return x, nil
}

func (p *parser) orExpr() (expr, error) {
	x, err := p.andExpr()
	for err == nil && p.isName("or") {
		p.next()
		var y expr
		y, err = p.andExpr()
		x = &binExpr{"or", x, y}
	}
	return x, err
}

func (p *parser) andExpr() (expr, error) {
	x, err := p.notExpr()
	for err == nil && p.isName("and") {
		p.next()
		var y expr
		y, err = p.notExpr()
		x = &binExpr{"and", x, y}
	}
	return x, err
}

func (p *parser) notExpr() (expr, error) {
	if p.isName("not") {
		p.next()
		x, err := p.notExpr()
		return &notExpr{x}, err
	}
	return p.compare()
}

func (p *parser) compare() (expr, error) {
	x, err := p.math1()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		var op string
		switch {
		case t.kind == tOp && (t.s == "==" || t.s == "!=" || t.s == "<" || t.s == ">" || t.s == "<=" || t.s == ">="):
			op = t.s
			p.next()
		case t.kind == tName && t.s == "in":
			op = "in"
			p.next()
		case t.kind == tName && t.s == "not" && p.toks[p.tp+1].kind == tName && p.toks[p.tp+1].s == "in":
			op = "not in"
			p.tp += 2
		default:
			return x, nil
		}
		y, err := p.math1()
		if err != nil {
			return nil, err
		}
		x = &binExpr{op, x, y}
	}
}

func (p *parser) math1() (expr, error) {
	x, err := p.concatExpr()
	for err == nil && (p.isOp("+") || p.isOp("-")) {
		op := p.next().s
		var y expr
		y, err = p.concatExpr()
		x = &binExpr{op, x, y}
	}
	return x, err
}

func (p *parser) concatExpr() (expr, error) {
	x, err := p.math2()
	for err == nil && p.isOp("~") {
		p.next()
		var y expr
		y, err = p.math2()
		x = &binExpr{"~", x, y}
	}
	return x, err
}

func (p *parser) math2() (expr, error) {
	x, err := p.pow()
	for err == nil && (p.isOp("*") || p.isOp("/") || p.isOp("//") || p.isOp("%")) {
		op := p.next().s
		var y expr
		y, err = p.pow()
		x = &binExpr{op, x, y}
	}
	return x, err
}

func (p *parser) pow() (expr, error) {
	x, err := p.unary(true)
	for err == nil && p.isOp("**") {
		p.next()
		var y expr
		y, err = p.unary(true)
		x = &binExpr{"**", x, y}
	}
	return x, err
}

func (p *parser) unary(withFilter bool) (expr, error) {
	var x expr
	var err error
	switch {
	case p.isOp("-"):
		p.next()
		var y expr
		y, err = p.unary(false)
		x = &negExpr{y}
	case p.isOp("+"):
		p.next()
		x, err = p.unary(false)
	default:
		x, err = p.primary()
	}
	if err != nil {
		return nil, err
	}
	if x, err = p.postfix(x); err != nil {
		return nil, err
	}
	if withFilter {
		return p.filters(x)
	}
	return x, nil
}

func (p *parser) primary() (expr, error) {
	t := p.next()
	switch t.kind {
	case tName:
		switch t.s {
		case "true", "True":
			return &litExpr{true}, nil
		case "false", "False":
			return &litExpr{false}, nil
		case "none", "None":
			return &litExpr{nil}, nil
		}
		return &nameExpr{t.s}, nil
	case tString:
		s := t.s
		for p.peek().kind == tString { // adjacent literals concatenate
			s += p.next().s
		}
		return &litExpr{plain(s)}, nil
	case tInt:
		return &litExpr{t.i}, nil
	case tFloat:
		return &litExpr{t.f}, nil
	case tOp:
		switch t.s {
		case "(":
			if p.accept(")") {
				return &listExpr{tuple: true}, nil
			}
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			if p.isOp(",") {
				items := []expr{x}
				for p.accept(",") && !p.isOp(")") {
					y, err := p.expr()
					if err != nil {
						return nil, err
					}
					items = append(items, y)
				}
				x = &listExpr{items: items, tuple: true}
			}
			return x, p.expect(")")
		case "[":
			l := &listExpr{}
			for !p.accept("]") {
				x, err := p.expr()
				if err != nil {
					return nil, err
				}
				l.items = append(l.items, x)
				if !p.accept(",") {
					if err := p.expect("]"); err != nil {
						return nil, err
					}
					break
				}
			}
			return l, nil
		case "{":
			d := &dictExpr{}
			for !p.accept("}") {
				k, err := p.expr()
				if err != nil {
					return nil, err
				}
				if err := p.expect(":"); err != nil {
					return nil, err
				}
				v, err := p.expr()
				if err != nil {
					return nil, err
				}
				d.keys = append(d.keys, k)
				d.vals = append(d.vals, v)
				if !p.accept(",") {
					if err := p.expect("}"); err != nil {
						return nil, err
					}
					break
				}
			}
			return d, nil
		}
	}
	if t.kind == tEOF {
		return nil, p.errf("unexpected end of expression")
	}
	return nil, p.errf("unexpected %q", t.s)
}

func (p *parser) postfix(x expr) (expr, error) {
	for {
		switch {
		case p.isOp("."):
			p.next()
			t := p.next()
			switch t.kind {
			case tName:
				x = &attrExpr{x, t.s}
			case tInt:
				x = &indexExpr{x, &litExpr{t.i}}
			default:
				return nil, p.errf("expected an attribute name")
			}
		case p.isOp("["):
			p.next()
			var parts [3]expr
			n := 0
			colons := 0
			for {
				if p.isOp(":") {
					p.next()
					colons++
					n++
					if colons > 2 {
						return nil, p.errf("bad slice")
					}
					continue
				}
				if p.isOp("]") {
					p.next()
					break
				}
				e, err := p.expr()
				if err != nil {
					return nil, err
				}
				parts[n] = e
			}
			if colons == 0 {
				x = &indexExpr{x, parts[0]}
			} else {
				x = &sliceExpr{x, parts[0], parts[1], parts[2]}
			}
		case p.isOp("("):
			p.next()
			args, kw, err := p.callArgs()
			if err != nil {
				return nil, err
			}
			x = &callExpr{x, args, kw}
		default:
			return x, nil
		}
	}
}

// callArgs parses arguments after "(" through ")".
func (p *parser) callArgs() ([]expr, []kwArg, error) {
	var args []expr
	var kw []kwArg
	for !p.accept(")") {
		if t := p.peek(); t.kind == tName && p.toks[p.tp+1].kind == tOp && p.toks[p.tp+1].s == "=" {
			p.tp += 2
			v, err := p.expr()
			if err != nil {
				return nil, nil, err
			}
			kw = append(kw, kwArg{t.s, v})
		} else {
			v, err := p.expr()
			if err != nil {
				return nil, nil, err
			}
			args = append(args, v)
		}
		if !p.accept(",") {
			if err := p.expect(")"); err != nil {
				return nil, nil, err
			}
			break
		}
	}
	return args, kw, nil
}

func (p *parser) filters(x expr) (expr, error) {
	for {
		switch {
		case p.isOp("|"):
			p.next()
			name, err := p.dottedName()
			if err != nil {
				return nil, err
			}
			f := &filterExpr{x: x, name: name}
			if p.accept("(") {
				if f.args, f.kw, err = p.callArgs(); err != nil {
					return nil, err
				}
			}
			x = f
		case p.isName("is"):
			p.next()
			t := &testExpr{x: x}
			if p.isName("not") {
				p.next()
				t.negate = true
			}
			name, err := p.dottedName()
			if err != nil {
				return nil, err
			}
			t.name = name
			if p.accept("(") {
				if t.args, _, err = p.callArgs(); err != nil {
					return nil, err
				}
			} else if nt := p.peek(); nt.kind == tString || nt.kind == tInt || nt.kind == tFloat ||
				nt.kind == tName && !isKeyword(nt.s) || nt.kind == tOp && (nt.s == "[" || nt.s == "{") {
				a, err := p.primary()
				if err != nil {
					return nil, err
				}
				if a, err = p.postfix(a); err != nil {
					return nil, err
				}
				t.args = []expr{a}
			}
			x = t
		default:
			return x, nil
		}
	}
}

func isKeyword(s string) bool {
	switch s {
	case "and", "or", "not", "in", "is", "if", "else", "for", "recursive":
		return true
	}
	return false
}

func (p *parser) dottedName() (string, error) {
	name, err := p.ident()
	if err != nil {
		return "", err
	}
	for p.isOp(".") && p.toks[p.tp+1].kind == tName {
		p.next()
		name += "." + p.next().s
	}
	return strings.TrimSpace(name), nil
}
