package chat

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// RaiseError is a template's own refusal: raise_exception(message).
type RaiseError struct {
	Message string
}

// Error returns the template's message.
func (e *RaiseError) Error() string { return e.Message }

var (
	errBreak    = errors.New("break outside a loop")
	errContinue = errors.New("continue outside a loop")
)

// maxOutput bounds a rendering, so a hostile template cannot exhaust
// memory (64 MiB is far beyond any prompt).
const maxOutput = 64 << 20

// ctx is the state of one rendering.
type ctx struct {
	scopes []map[string]any
	out    strings.Builder
	taint  []span
	steps  int
	depth  int       // macro call depth
	now    time.Time // what strftime_now formats
}

func (c *ctx) lookup(name string) any {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if v, ok := c.scopes[i][name]; ok {
			return v
		}
	}
	return undefined{name}
}

func (c *ctx) write(v str) error {
	off := c.out.Len()
	for _, t := range v.taint {
		if n := len(c.taint); n > 0 && c.taint[n-1].b == t.a+off {
			c.taint[n-1].b = t.b + off
			continue
		}
		c.taint = append(c.taint, span{t.a + off, t.b + off})
	}
	c.out.WriteString(v.s)
	if c.out.Len() > maxOutput {
		return fmt.Errorf("rendered prompt exceeds %d bytes", maxOutput)
	}
	return nil
}

func (c *ctx) exec(nodes []node) error {
	for _, n := range nodes {
		c.steps++
		if c.steps > 10_000_000 {
			return errors.New("template runs too long")
		}
		switch n := n.(type) {
		case *textNode:
			if err := c.write(plain(n.s)); err != nil {
				return err
			}
		case *outputNode:
			v, err := c.eval(n.x)
			if err != nil {
				return err
			}
			if err := c.write(toStr(v)); err != nil {
				return err
			}
		case *ifNode:
			done := false
			for i, cond := range n.conds {
				v, err := c.eval(cond)
				if err != nil {
					return err
				}
				if truthy(v) {
					if err := c.exec(n.bodies[i]); err != nil {
						return err
					}
					done = true
					break
				}
			}
			if !done && n.els != nil {
				if err := c.exec(n.els); err != nil {
					return err
				}
			}
		case *forNode:
			if err := c.execFor(n); err != nil {
				return err
			}
		case *setNode:
			if err := c.execSet(n); err != nil {
				return err
			}
		case *macroNode:
			c.scopes[len(c.scopes)-1][n.name] = c.macro(n)
		case *breakNode:
			return errBreak
		case *continueNode:
			return errContinue
		}
	}
	return nil
}

func (c *ctx) execSet(n *setNode) error {
	var v any
	if n.body != nil {
		sub := &ctx{scopes: c.scopes, steps: c.steps, depth: c.depth, now: c.now}
		if err := sub.exec(n.body); err != nil {
			return err
		}
		c.steps = sub.steps
		v = str{s: sub.out.String(), taint: sub.taint}
	} else {
		var err error
		if v, err = c.eval(n.x); err != nil {
			return err
		}
	}
	scope := c.scopes[len(c.scopes)-1]
	if n.attr != "" {
		ns, ok := c.lookup(n.targets[0]).(*dict)
		if !ok || !ns.namespace {
			return fmt.Errorf("cannot assign attribute on non-namespace object %s", n.targets[0])
		}
		ns.set(n.attr, v)
		return nil
	}
	if len(n.targets) == 1 {
		scope[n.targets[0]] = v
		return nil
	}
	items, err := iterate(v)
	if err != nil {
		return err
	}
	if len(items) != len(n.targets) {
		return fmt.Errorf("cannot unpack %d values into %d names", len(items), len(n.targets))
	}
	for i, name := range n.targets {
		scope[name] = items[i]
	}
	return nil
}

// loopInfo is the loop variable.
type loopInfo struct {
	index, length int
	items         []any
}

func (l *loopInfo) attr(name string) any {
	i, n := l.index, l.length
	switch name {
	case "index":
		return int64(i + 1)
	case "index0":
		return int64(i)
	case "revindex":
		return int64(n - i)
	case "revindex0":
		return int64(n - i - 1)
	case "first":
		return i == 0
	case "last":
		return i == n-1
	case "length":
		return int64(n)
	case "depth":
		return int64(1)
	case "depth0":
		return int64(0)
	case "previtem":
		if i > 0 {
			return l.items[i-1]
		}
	case "nextitem":
		if i+1 < n {
			return l.items[i+1]
		}
	case "cycle":
		return callable(func(_ *ctx, args []any, _ map[string]any) (any, error) {
			if len(args) == 0 {
				return nil, errors.New("no items for cycling given")
			}
			return args[i%len(args)], nil
		})
	}
	return undefined{"loop." + name}
}

func (c *ctx) execFor(n *forNode) error {
	seq, err := c.eval(n.iter)
	if err != nil {
		return err
	}
	items, err := iterate(seq)
	if err != nil {
		return err
	}
	scope := map[string]any{}
	c.scopes = append(c.scopes, scope)
	defer func() { c.scopes = c.scopes[:len(c.scopes)-1] }()
	bind := func(item any) error {
		if len(n.targets) == 1 {
			scope[n.targets[0]] = item
			return nil
		}
		parts, err := iterate(item)
		if err != nil {
			return err
		}
		if len(parts) != len(n.targets) {
			return fmt.Errorf("cannot unpack %d values into %d loop variables", len(parts), len(n.targets))
		}
		for i, name := range n.targets {
			scope[name] = parts[i]
		}
		return nil
	}
	if n.filter != nil {
		var kept []any
		for _, it := range items {
			if err := bind(it); err != nil {
				return err
			}
			v, err := c.eval(n.filter)
			if err != nil {
				return err
			}
			if truthy(v) {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	if len(items) == 0 {
		return c.exec(n.els)
	}
	loop := &loopInfo{length: len(items), items: items}
	for i, it := range items {
		clear(scope)
		loop.index = i
		scope["loop"] = loop
		if err := bind(it); err != nil {
			return err
		}
		err := c.exec(n.body)
		if err == errBreak {
			break
		}
		if err != nil && err != errContinue {
			return err
		}
	}
	return nil
}

func (c *ctx) macro(m *macroNode) callable {
	return func(c *ctx, args []any, kw map[string]any) (any, error) {
		scope := map[string]any{}
		for i, name := range m.params {
			switch {
			case i < len(args):
				scope[name] = args[i]
			case kw[name] != nil:
				scope[name] = kw[name]
			case m.defaults[i] != nil:
				v, err := c.eval(m.defaults[i])
				if err != nil {
					return nil, err
				}
				scope[name] = v
			default:
				scope[name] = undefined{name}
			}
		}
		if c.depth >= 64 {
			return nil, errors.New("macro recursion too deep")
		}
		sub := &ctx{scopes: append(c.scopes[:len(c.scopes):len(c.scopes)], scope), steps: c.steps, depth: c.depth + 1, now: c.now}
		if err := sub.exec(m.body); err != nil {
			return nil, err
		}
		c.steps = sub.steps
		return str{s: sub.out.String(), taint: sub.taint}, nil
	}
}

// iterate lists the items of an iterable value, as Python's iter().
func iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case *dict:
		out := make([]any, len(x.keys))
		for i, k := range x.keys {
			out[i] = plain(k)
		}
		return out, nil
	case str:
		offs := runeOffsets(x.s)
		out := make([]any, len(offs)-1)
		for i := range out {
			out[i] = x.sub(offs[i], offs[i+1])
		}
		return out, nil
	case undefined:
		return nil, nil
	}
	return nil, fmt.Errorf("'%s' object is not iterable", typeName(v))
}

func (c *ctx) eval(e expr) (any, error) {
	switch e := e.(type) {
	case *litExpr:
		return e.v, nil
	case *nameExpr:
		return c.lookup(e.name), nil
	case *listExpr:
		out := make([]any, len(e.items))
		for i, x := range e.items {
			v, err := c.eval(x)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *dictExpr:
		d := newDict()
		for i := range e.keys {
			k, err := c.eval(e.keys[i])
			if err != nil {
				return nil, err
			}
			v, err := c.eval(e.vals[i])
			if err != nil {
				return nil, err
			}
			d.set(toStr(k).s, v)
		}
		return d, nil
	case *attrExpr:
		x, err := c.eval(e.x)
		if err != nil {
			return nil, err
		}
		return getAttr(x, e.name), nil
	case *indexExpr:
		x, err := c.eval(e.x)
		if err != nil {
			return nil, err
		}
		i, err := c.eval(e.index)
		if err != nil {
			return nil, err
		}
		return getItem(x, i)
	case *sliceExpr:
		return c.evalSlice(e)
	case *callExpr:
		return c.evalCall(e)
	case *filterExpr:
		return c.evalFilter(e)
	case *testExpr:
		return c.evalTest(e)
	case *notExpr:
		v, err := c.eval(e.x)
		return !truthy(v), err
	case *negExpr:
		v, err := c.eval(e.x)
		if err != nil {
			return nil, err
		}
		switch x := v.(type) {
		case int64:
			return -x, nil
		case float64:
			return -x, nil
		case bool:
			if x {
				return int64(-1), nil
			}
			return int64(0), nil
		}
		return nil, fmt.Errorf("bad operand type for unary -: '%s'", typeName(v))
	case *condExpr:
		cond, err := c.eval(e.cond)
		if err != nil {
			return nil, err
		}
		if truthy(cond) {
			return c.eval(e.yes)
		}
		if e.no == nil {
			return undefined{}, nil
		}
		return c.eval(e.no)
	case *binExpr:
		return c.evalBin(e)
	}
	return nil, fmt.Errorf("unknown expression %T", e)
}

func (c *ctx) evalBin(e *binExpr) (any, error) {
	l, err := c.eval(e.l)
	if err != nil {
		return nil, err
	}
	switch e.op {
	case "and":
		if !truthy(l) {
			return l, nil
		}
		return c.eval(e.r)
	case "or":
		if truthy(l) {
			return l, nil
		}
		return c.eval(e.r)
	}
	r, err := c.eval(e.r)
	if err != nil {
		return nil, err
	}
	switch e.op {
	case "==":
		return equal(l, r), nil
	case "!=":
		return !equal(l, r), nil
	case "in", "not in":
		ok, err := contains(r, l)
		if e.op == "not in" {
			ok = !ok
		}
		return ok, err
	case "~":
		return concat(toStr(l), toStr(r)), nil
	case "<", ">", "<=", ">=":
		cmp, err := compare(l, r)
		if err != nil {
			return nil, err
		}
		switch e.op {
		case "<":
			return cmp < 0, nil
		case ">":
			return cmp > 0, nil
		case "<=":
			return cmp <= 0, nil
		}
		return cmp >= 0, nil
	case "+":
		switch x := l.(type) {
		case str:
			if y, ok := r.(str); ok {
				return concat(x, y), nil
			}
		case []any:
			if y, ok := r.([]any); ok {
				return append(append([]any{}, x...), y...), nil
			}
		}
	case "*":
		if x, ok := l.(str); ok {
			if n, ok := r.(int64); ok {
				if n > 0 && int64(len(x.s)) > maxOutput/n {
					return nil, errors.New("repeated string too long")
				}
				return wholeIf(strings.Repeat(x.s, int(max(0, n))), x), nil
			}
		}
	case "%":
		if x, ok := l.(str); ok {
			return pyFormat(x, r)
		}
	}
	return arith(e.op, l, r)
}

func arith(op string, l, r any) (any, error) {
	if _, isUndef := l.(undefined); isUndef {
		return nil, fmt.Errorf("'%s' is undefined", l.(undefined).name)
	}
	if _, isUndef := r.(undefined); isUndef {
		return nil, fmt.Errorf("'%s' is undefined", r.(undefined).name)
	}
	li, lInt := l.(int64)
	ri, rInt := r.(int64)
	if b, ok := l.(bool); ok {
		li, lInt = boolInt(b), true
	}
	if b, ok := r.(bool); ok {
		ri, rInt = boolInt(b), true
	}
	if lInt && rInt {
		switch op {
		case "+":
			return li + ri, nil
		case "-":
			return li - ri, nil
		case "*":
			return li * ri, nil
		case "/":
			if ri == 0 {
				return nil, errors.New("division by zero")
			}
			return float64(li) / float64(ri), nil
		case "//":
			if ri == 0 {
				return nil, errors.New("integer division or modulo by zero")
			}
			q := li / ri
			if (li%ri != 0) && ((li < 0) != (ri < 0)) {
				q--
			}
			return q, nil
		case "%":
			if ri == 0 {
				return nil, errors.New("integer division or modulo by zero")
			}
			m := li % ri
			if m != 0 && (m < 0) != (ri < 0) {
				m += ri
			}
			return m, nil
		case "**":
			if ri >= 0 {
				return int64(math.Pow(float64(li), float64(ri))), nil
			}
			return math.Pow(float64(li), float64(ri)), nil
		}
	}
	lf, lok := number(l)
	rf, rok := number(r)
	if lok && rok {
		switch op {
		case "+":
			return lf + rf, nil
		case "-":
			return lf - rf, nil
		case "*":
			return lf * rf, nil
		case "/":
			if rf == 0 {
				return nil, errors.New("float division by zero")
			}
			return lf / rf, nil
		case "//":
			if rf == 0 {
				return nil, errors.New("float divmod()")
			}
			return math.Floor(lf / rf), nil
		case "%":
			if rf == 0 {
				return nil, errors.New("float modulo")
			}
			m := math.Mod(lf, rf)
			if m != 0 && (m < 0) != (rf < 0) {
				m += rf
			}
			return m, nil
		case "**":
			return math.Pow(lf, rf), nil
		}
	}
	return nil, fmt.Errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, typeName(l), typeName(r))
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func compare(l, r any) (int, error) {
	if x, ok := l.(str); ok {
		if y, ok := r.(str); ok {
			return strings.Compare(x.s, y.s), nil
		}
	}
	lf, lok := number(l)
	rf, rok := number(r)
	if !lok || !rok {
		return 0, fmt.Errorf("'<' not supported between instances of '%s' and '%s'", typeName(l), typeName(r))
	}
	switch {
	case lf < rf:
		return -1, nil
	case lf > rf:
		return 1, nil
	}
	return 0, nil
}

// contains is Python's "needle in haystack".
func contains(haystack, needle any) (bool, error) {
	switch h := haystack.(type) {
	case str:
		n, ok := needle.(str)
		if !ok {
			return false, fmt.Errorf("'in <string>' requires string as left operand, not %s", typeName(needle))
		}
		return strings.Contains(h.s, n.s), nil
	case []any:
		for _, x := range h {
			if equal(x, needle) {
				return true, nil
			}
		}
		return false, nil
	case *dict:
		k, ok := needle.(str)
		if !ok {
			return false, nil
		}
		_, in := h.m[k.s]
		return in, nil
	case undefined:
		return false, nil
	}
	return false, fmt.Errorf("argument of type '%s' is not iterable", typeName(haystack))
}

// getAttr is x.name: a mapping's key, a loop attribute, or a method.
func getAttr(x any, name string) any {
	switch v := x.(type) {
	case *dict:
		if e, ok := v.m[name]; ok {
			return e
		}
		if m := dictMethod(v, name); m != nil {
			return m
		}
	case *loopInfo:
		return v.attr(name)
	case str:
		if m := strMethod(v, name); m != nil {
			return m
		}
	case []any:
		if m := listMethod(v, name); m != nil {
			return m
		}
	}
	return undefined{name}
}

// getItem is x[i].
func getItem(x, i any) (any, error) {
	switch v := x.(type) {
	case *dict:
		k, ok := i.(str)
		if !ok {
			return undefined{}, nil
		}
		if e, ok := v.m[k.s]; ok {
			return e, nil
		}
		return undefined{k.s}, nil
	case []any:
		n, ok := i.(int64)
		if !ok {
			return undefined{}, nil
		}
		if n < 0 {
			n += int64(len(v))
		}
		if n < 0 || n >= int64(len(v)) {
			return undefined{}, nil
		}
		return v[n], nil
	case str:
		n, ok := i.(int64)
		if !ok {
			return undefined{}, nil
		}
		offs := runeOffsets(v.s)
		if n < 0 {
			n += int64(len(offs) - 1)
		}
		if n < 0 || n >= int64(len(offs)-1) {
			return undefined{}, nil
		}
		return v.sub(offs[n], offs[n+1]), nil
	case *loopInfo:
		if k, ok := i.(str); ok {
			return v.attr(k.s), nil
		}
	case undefined:
		return nil, fmt.Errorf("'%s' is undefined", v.name)
	}
	return undefined{}, nil
}

func (c *ctx) evalSlice(e *sliceExpr) (any, error) {
	x, err := c.eval(e.x)
	if err != nil {
		return nil, err
	}
	var bounds [3]*int64
	for k, b := range []expr{e.lo, e.hi, e.step} {
		if b == nil {
			continue
		}
		v, err := c.eval(b)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		n, ok := v.(int64)
		if !ok {
			return nil, errors.New("slice indices must be integers or None")
		}
		bounds[k] = &n
	}
	var n int
	var offs []int
	switch v := x.(type) {
	case []any:
		n = len(v)
	case str:
		offs = runeOffsets(v.s)
		n = len(offs) - 1
	default:
		return nil, fmt.Errorf("'%s' object is not subscriptable", typeName(x))
	}
	idx, err := sliceIndices(n, bounds)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case []any:
		out := make([]any, len(idx))
		for k, i := range idx {
			out[k] = v[i]
		}
		return out, nil
	default:
		sv := x.(str)
		// Contiguous forward slices keep exact taint; others are whole.
		if len(idx) > 0 && (bounds[2] == nil || *bounds[2] == 1) {
			return sv.sub(offs[idx[0]], offs[idx[len(idx)-1]+1]), nil
		}
		var sb strings.Builder
		for _, i := range idx {
			sb.WriteString(sv.s[offs[i]:offs[i+1]])
		}
		return wholeIf(sb.String(), sv), nil
	}
}

// runeOffsets returns the byte offset of every rune of s (an invalid byte
// counts as one rune), followed by len(s).
func runeOffsets(s string) []int {
	offs := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		offs = append(offs, i)
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	return append(offs, len(s))
}

// sliceIndices is Python's slice.indices, expanded.
func sliceIndices(n int, b [3]*int64) ([]int, error) {
	step := int64(1)
	if b[2] != nil {
		step = *b[2]
		if step == 0 {
			return nil, errors.New("slice step cannot be zero")
		}
	}
	clamp := func(p *int64, def int64, lo, hi int64) int64 {
		if p == nil {
			return def
		}
		v := *p
		if v < 0 {
			v += int64(n)
		}
		return max(lo, min(hi, v))
	}
	var out []int
	if step > 0 {
		start := clamp(b[0], 0, 0, int64(n))
		stop := clamp(b[1], int64(n), 0, int64(n))
		for i := start; i < stop; i += step {
			out = append(out, int(i))
		}
	} else {
		start := clamp(b[0], int64(n)-1, -1, int64(n)-1)
		stop := clamp(b[1], -1, -1, int64(n)-1)
		if b[1] != nil && *b[1] < 0 && *b[1]+int64(n) < 0 {
			stop = -1
		}
		for i := start; i > stop; i += step {
			out = append(out, int(i))
		}
	}
	return out, nil
}

func (c *ctx) args(args []expr, kw []kwArg) ([]any, map[string]any, error) {
	vals := make([]any, len(args))
	for i, a := range args {
		v, err := c.eval(a)
		if err != nil {
			return nil, nil, err
		}
		vals[i] = v
	}
	var kws map[string]any
	if len(kw) > 0 {
		kws = map[string]any{}
		for _, k := range kw {
			v, err := c.eval(k.v)
			if err != nil {
				return nil, nil, err
			}
			kws[k.name] = v
		}
	}
	return vals, kws, nil
}

func (c *ctx) evalCall(e *callExpr) (any, error) {
	fn, err := c.eval(e.fn)
	if err != nil {
		return nil, err
	}
	args, kw, err := c.args(e.args, e.kw)
	if err != nil {
		return nil, err
	}
	f, ok := fn.(callable)
	if !ok {
		if u, isU := fn.(undefined); isU {
			return nil, fmt.Errorf("'%s' is undefined", u.name)
		}
		return nil, fmt.Errorf("'%s' object is not callable", typeName(fn))
	}
	return f(c, args, kw)
}

// globals are the functions every template sees, as transformers sets up.
func globals() map[string]any {
	return map[string]any{
		"raise_exception": callable(func(_ *ctx, args []any, _ map[string]any) (any, error) {
			msg := ""
			if len(args) > 0 {
				msg = toStr(args[0]).s
			}
			return nil, &RaiseError{Message: msg}
		}),
		// strftime_now(format) is transformers' datetime.now().strftime:
		// the rendering's clock (Options.Now) formatted the Python way.
		"strftime_now": callable(func(c *ctx, args []any, _ map[string]any) (any, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("strftime_now() takes 1 argument (%d given)", len(args))
			}
			f, ok := args[0].(str)
			if !ok {
				return nil, fmt.Errorf("strftime_now() argument must be str, not %s", typeName(args[0]))
			}
			s, err := strftime(c.now, f.s)
			if err != nil {
				return nil, err
			}
			return plain(s), nil
		}),
		"namespace": callable(func(_ *ctx, args []any, kw map[string]any) (any, error) {
			d := newDict()
			d.namespace = true
			if len(args) > 0 {
				if src, ok := args[0].(*dict); ok {
					for _, k := range src.keys {
						d.set(k, src.m[k])
					}
				}
			}
			for _, k := range sortedKeys(kw) {
				d.set(k, kw[k])
			}
			return d, nil
		}),
		"range": callable(func(_ *ctx, args []any, _ map[string]any) (any, error) {
			var lo, hi, step int64 = 0, 0, 1
			ints := make([]int64, len(args))
			for i, a := range args {
				n, ok := a.(int64)
				if !ok {
					return nil, errors.New("range() arguments must be integers")
				}
				ints[i] = n
			}
			switch len(ints) {
			case 1:
				hi = ints[0]
			case 2:
				lo, hi = ints[0], ints[1]
			case 3:
				lo, hi, step = ints[0], ints[1], ints[2]
			default:
				return nil, errors.New("range() takes 1 to 3 arguments")
			}
			if step == 0 {
				return nil, errors.New("range() arg 3 must not be zero")
			}
			var out []any
			for i := lo; (step > 0 && i < hi) || (step < 0 && i > hi); i += step {
				if len(out) > 1<<20 {
					return nil, errors.New("range too large")
				}
				out = append(out, i)
			}
			return out, nil
		}),
		"dict": callable(func(_ *ctx, _ []any, kw map[string]any) (any, error) {
			d := newDict()
			for _, k := range sortedKeys(kw) {
				d.set(k, kw[k])
			}
			return d, nil
		}),
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// pyFormat is the "fmt % args" operator for %s and %d.
func pyFormat(f str, arg any) (any, error) {
	args, ok := arg.([]any)
	if !ok {
		args = []any{arg}
	}
	var parts []str
	k := 0
	s := f.s
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '%' || i+1 >= len(s) {
			continue
		}
		parts = append(parts, f.sub(last, i))
		switch s[i+1] {
		case '%':
			parts = append(parts, plain("%"))
		case 's', 'd', 'r':
			if k >= len(args) {
				return nil, errors.New("not enough arguments for format string")
			}
			switch s[i+1] {
			case 'r':
				parts = append(parts, wholeIf(repr(args[k], true), args[k]))
			case 'd':
				n, ok := number(args[k])
				if !ok {
					return nil, fmt.Errorf("%%d format: a number is required, not %s", typeName(args[k]))
				}
				parts = append(parts, plain(fmt.Sprint(int64(n))))
			default:
				parts = append(parts, toStr(args[k]))
			}
			k++
		default:
			return nil, fmt.Errorf("unsupported format character %q", s[i+1])
		}
		i++
		last = i + 1
	}
	parts = append(parts, f.sub(last, len(s)))
	return concat(parts...), nil
}

func isTitleBoundary(prev rune) bool { return !unicode.IsLetter(prev) && !unicode.IsDigit(prev) }
