package chat

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

func (c *ctx) evalFilter(e *filterExpr) (any, error) {
	x, err := c.eval(e.x)
	if err != nil {
		return nil, err
	}
	args, kw, err := c.args(e.args, e.kw)
	if err != nil {
		return nil, err
	}
	arg := func(i int, name string) (any, bool) {
		if i < len(args) {
			return args[i], true
		}
		v, ok := kw[name]
		return v, ok
	}
	switch e.name {
	case "trim":
		s, ok := x.(str)
		if !ok {
			s = toStr(x)
		}
		if ch, ok := arg(0, "chars"); ok && ch != nil {
			cs := toStr(ch).s
			return strip(s, &cs, true, true), nil
		}
		return strip(s, nil, true, true), nil
	case "length", "count":
		switch v := x.(type) {
		case str:
			return int64(utf8.RuneCountInString(v.s)), nil
		case []any:
			return int64(len(v)), nil
		case *dict:
			return int64(len(v.keys)), nil
		case undefined:
			return int64(0), nil
		}
		return nil, fmt.Errorf("object of type '%s' has no len()", typeName(x))
	case "tojson":
		indent := ""
		if v, ok := arg(0, "indent"); ok && v != nil {
			switch n := v.(type) {
			case int64:
				indent = strings.Repeat(" ", int(max(0, min(n, 64))))
			case str:
				indent = n.s
			}
		}
		var sb strings.Builder
		if err := toJSON(x, indent, 0, &sb); err != nil {
			return nil, err
		}
		return wholeIf(sb.String(), x), nil
	case "items":
		d, ok := x.(*dict)
		if !ok {
			if _, u := x.(undefined); u {
				return []any{}, nil
			}
			return nil, fmt.Errorf("items filter needs a mapping, got %s", typeName(x))
		}
		out := make([]any, len(d.keys))
		for i, k := range d.keys {
			out[i] = []any{plain(k), d.m[k]}
		}
		return out, nil
	case "join":
		items, err := iterate(x)
		if err != nil {
			return nil, err
		}
		sep := str{}
		if v, ok := arg(0, "d"); ok {
			sep = toStr(v)
		}
		attr, _ := arg(1, "attribute")
		parts := make([]str, 0, 2*len(items))
		for i, it := range items {
			if i > 0 {
				parts = append(parts, sep)
			}
			if attr != nil {
				it = getAttr(it, toStr(attr).s)
			}
			parts = append(parts, toStr(it))
		}
		return concat(parts...), nil
	case "select", "reject", "selectattr", "rejectattr":
		items, err := iterate(x)
		if err != nil {
			return nil, err
		}
		byAttr := strings.HasSuffix(e.name, "attr")
		want := strings.HasPrefix(e.name, "select")
		rest := args
		attr := ""
		if byAttr {
			if len(rest) == 0 {
				return nil, fmt.Errorf("%s needs an attribute", e.name)
			}
			attr = toStr(rest[0]).s
			rest = rest[1:]
		}
		var out []any
		for _, it := range items {
			v := it
			if byAttr {
				v = getAttr(it, attr)
			}
			ok := truthy(v)
			if len(rest) > 0 {
				if ok, err = runTest(toStr(rest[0]).s, v, rest[1:]); err != nil {
					return nil, err
				}
			}
			if ok == want {
				out = append(out, it)
			}
		}
		return out, nil
	case "map":
		items, err := iterate(x)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(items))
		if a, ok := kw["attribute"]; ok {
			for i, it := range items {
				out[i] = getAttr(it, toStr(a).s)
				if _, u := out[i].(undefined); u {
					if d, ok := kw["default"]; ok {
						out[i] = d
					}
				}
			}
			return out, nil
		}
		if len(args) == 0 {
			return nil, errors.New("map needs a filter name or attribute=")
		}
		for i, it := range items {
			v, err := c.evalFilter(&filterExpr{x: &litExpr{it}, name: toStr(args[0]).s, args: litArgs(args[1:])})
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case "first", "last":
		items, err := iterate(x)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return undefined{}, nil
		}
		if e.name == "first" {
			return items[0], nil
		}
		return items[len(items)-1], nil
	case "list":
		return iterate(x)
	case "string":
		return toStr(x), nil
	case "upper", "lower", "capitalize", "title":
		s := toStr(x)
		return wholeIf(caseMap(e.name, s.s), s), nil
	case "default", "d":
		def, _ := arg(0, "default_value")
		boolean, _ := arg(1, "boolean")
		if _, u := x.(undefined); u || truthy(boolean) && !truthy(x) {
			if def == nil && len(args) == 0 {
				return plain(""), nil
			}
			return def, nil
		}
		return x, nil
	case "int":
		switch v := x.(type) {
		case int64:
			return v, nil
		case float64:
			return int64(v), nil
		case bool:
			return boolInt(v), nil
		case str:
			if n, err := strconv.ParseInt(strings.TrimSpace(v.s), 10, 64); err == nil {
				return n, nil
			}
			if f, err := strconv.ParseFloat(strings.TrimSpace(v.s), 64); err == nil {
				return int64(f), nil
			}
		}
		return int64(0), nil
	case "float":
		if f, ok := number(x); ok {
			return f, nil
		}
		if s, ok := x.(str); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(s.s), 64); err == nil {
				return f, nil
			}
		}
		return 0.0, nil
	case "abs":
		switch v := x.(type) {
		case int64:
			if v < 0 {
				return -v, nil
			}
			return v, nil
		case float64:
			if v < 0 {
				return -v, nil
			}
			return v, nil
		}
		return nil, fmt.Errorf("bad operand type for abs(): '%s'", typeName(x))
	case "safe", "e", "escape", "forceescape":
		if e.name == "safe" {
			return x, nil
		}
		s := toStr(x)
		r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&#34;", "'", "&#39;")
		return wholeIf(r.Replace(s.s), s), nil
	case "replace":
		s := toStr(x)
		if len(args) < 2 {
			return nil, errors.New("replace needs two arguments")
		}
		return wholeIf(strings.ReplaceAll(s.s, toStr(args[0]).s, toStr(args[1]).s), s, args[1]), nil
	case "indent":
		s := toStr(x)
		width := "    "
		if v, ok := arg(0, "width"); ok {
			switch w := v.(type) {
			case int64:
				width = strings.Repeat(" ", int(max(0, min(w, 64))))
			case str:
				width = w.s
			}
		}
		first, _ := arg(1, "first")
		blank, _ := arg(2, "blank")
		lines := strings.Split(s.s, "\n")
		for i, l := range lines {
			if (i > 0 || truthy(first)) && (l != "" || truthy(blank)) {
				lines[i] = width + l
			}
		}
		return wholeIf(strings.Join(lines, "\n"), s), nil
	case "unique":
		items, err := iterate(x)
		if err != nil {
			return nil, err
		}
		var out []any
		for _, it := range items {
			dup := false
			for _, o := range out {
				if equal(o, it) {
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, it)
			}
		}
		return out, nil
	case "sort":
		items, err := iterate(x)
		if err != nil {
			return nil, err
		}
		out := append([]any{}, items...)
		var serr error
		sort.SliceStable(out, func(i, j int) bool {
			k, err := compare(out[i], out[j])
			if err != nil {
				serr = err
			}
			return k < 0
		})
		return out, serr
	case "reverse":
		if s, ok := x.(str); ok {
			rs := []rune(s.s)
			for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
				rs[i], rs[j] = rs[j], rs[i]
			}
			return wholeIf(string(rs), s), nil
		}
		items, err := iterate(x)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(items))
		for i, it := range items {
			out[len(items)-1-i] = it
		}
		return out, nil
	case "wordcount":
		return int64(len(strings.Fields(toStr(x).s))), nil
	}
	return nil, fmt.Errorf("no filter named %q", e.name)
}

func litArgs(vals []any) []expr {
	out := make([]expr, len(vals))
	for i, v := range vals {
		out[i] = &litExpr{v}
	}
	return out
}

func caseMap(kind, s string) string {
	switch kind {
	case "upper":
		return strings.ToUpper(s)
	case "lower":
		return strings.ToLower(s)
	case "capitalize":
		r, n := utf8.DecodeRuneInString(s)
		if n == 0 {
			return s
		}
		return string(unicode.ToUpper(r)) + strings.ToLower(s[n:])
	}
	// title
	var sb strings.Builder
	prev := ' '
	for _, r := range s {
		if isTitleBoundary(prev) {
			sb.WriteRune(unicode.ToTitle(r))
		} else {
			sb.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	return sb.String()
}

func (c *ctx) evalTest(e *testExpr) (any, error) {
	x, err := c.eval(e.x)
	if err != nil {
		return nil, err
	}
	args, _, err := c.args(e.args, nil)
	if err != nil {
		return nil, err
	}
	ok, err := runTest(e.name, x, args)
	if err != nil {
		return nil, err
	}
	return ok != e.negate, nil
}

func runTest(name string, x any, args []any) (bool, error) {
	arg0 := func() (any, error) {
		if len(args) == 0 {
			return nil, fmt.Errorf("test %q needs an argument", name)
		}
		return args[0], nil
	}
	switch name {
	case "defined":
		_, u := x.(undefined)
		return !u, nil
	case "undefined":
		_, u := x.(undefined)
		return u, nil
	case "none":
		return x == nil, nil
	case "string":
		_, ok := x.(str)
		return ok, nil
	case "number":
		switch x.(type) {
		case int64, float64:
			return true, nil
		}
		return false, nil
	case "integer":
		_, ok := x.(int64)
		return ok, nil
	case "float":
		_, ok := x.(float64)
		return ok, nil
	case "boolean":
		_, ok := x.(bool)
		return ok, nil
	case "true":
		b, ok := x.(bool)
		return ok && b, nil
	case "false":
		b, ok := x.(bool)
		return ok && !b, nil
	case "mapping":
		_, ok := x.(*dict)
		return ok, nil
	case "iterable":
		switch x.(type) {
		case str, []any, *dict, undefined:
			return true, nil
		}
		return false, nil
	case "sequence":
		switch x.(type) {
		case str, []any, *dict:
			return true, nil
		}
		return false, nil
	case "callable":
		_, ok := x.(callable)
		return ok, nil
	case "odd", "even":
		n, ok := x.(int64)
		if !ok {
			return false, fmt.Errorf("test %q needs an integer", name)
		}
		return (n%2 != 0) == (name == "odd"), nil
	case "divisibleby":
		a, err := arg0()
		if err != nil {
			return false, err
		}
		n, ok1 := x.(int64)
		d, ok2 := a.(int64)
		if !ok1 || !ok2 || d == 0 {
			return false, errors.New("divisibleby needs non-zero integers")
		}
		return n%d == 0, nil
	case "eq", "equalto", "==", "sameas":
		a, err := arg0()
		return err == nil && equal(x, a), err
	case "ne", "!=":
		a, err := arg0()
		return err == nil && !equal(x, a), err
	case "in":
		a, err := arg0()
		if err != nil {
			return false, err
		}
		return contains(a, x)
	case "lower", "upper":
		s, ok := x.(str)
		if !ok {
			return false, nil
		}
		return s.s == caseMap(name, s.s), nil
	case "gt", "lt", "ge", "le", ">", "<", ">=", "<=", "greaterthan", "lessthan":
		a, err := arg0()
		if err != nil {
			return false, err
		}
		k, err := compare(x, a)
		switch name {
		case "gt", ">", "greaterthan":
			return k > 0, err
		case "lt", "<", "lessthan":
			return k < 0, err
		case "ge", ">=":
			return k >= 0, err
		}
		return k <= 0, err
	}
	return false, fmt.Errorf("no test named %q", name)
}

func method(f func(args []any, kw map[string]any) (any, error)) callable {
	return func(_ *ctx, args []any, kw map[string]any) (any, error) { return f(args, kw) }
}

// strMethod returns Python's str methods the templates use.
func strMethod(s str, name string) any {
	optChars := func(args []any) *string {
		if len(args) > 0 && args[0] != nil {
			c := toStr(args[0]).s
			return &c
		}
		return nil
	}
	switch name {
	case "strip", "lstrip", "rstrip":
		return method(func(args []any, _ map[string]any) (any, error) {
			return strip(s, optChars(args), name != "rstrip", name != "lstrip"), nil
		})
	case "startswith", "endswith":
		return method(func(args []any, _ map[string]any) (any, error) {
			if len(args) == 0 {
				return nil, fmt.Errorf("%s needs an argument", name)
			}
			cands := []any{args[0]}
			if l, ok := args[0].([]any); ok {
				cands = l
			}
			for _, c := range cands {
				p := toStr(c).s
				if name == "startswith" && strings.HasPrefix(s.s, p) || name == "endswith" && strings.HasSuffix(s.s, p) {
					return true, nil
				}
			}
			return false, nil
		})
	case "split", "rsplit":
		return method(func(args []any, kw map[string]any) (any, error) {
			limit := int64(-1)
			if len(args) > 1 {
				limit, _ = args[1].(int64)
			} else if v, ok := kw["maxsplit"].(int64); ok {
				limit = v
			}
			var sep any
			if len(args) > 0 {
				sep = args[0]
			} else {
				sep = kw["sep"]
			}
			return pySplit(s, sep, limit, name == "rsplit")
		})
	case "upper", "lower", "capitalize", "title":
		return method(func([]any, map[string]any) (any, error) { return wholeIf(caseMap(name, s.s), s), nil })
	case "replace":
		return method(func(args []any, _ map[string]any) (any, error) {
			if len(args) < 2 {
				return nil, errors.New("replace needs two arguments")
			}
			n := -1
			if len(args) > 2 {
				if c, ok := args[2].(int64); ok {
					n = int(c)
				}
			}
			return wholeIf(strings.Replace(s.s, toStr(args[0]).s, toStr(args[1]).s, n), s, args[1]), nil
		})
	case "find", "index", "rfind", "count":
		return method(func(args []any, _ map[string]any) (any, error) {
			if len(args) == 0 {
				return nil, fmt.Errorf("%s needs an argument", name)
			}
			sub := toStr(args[0]).s
			var i int
			switch name {
			case "count":
				return int64(strings.Count(s.s, sub)), nil
			case "rfind":
				i = strings.LastIndex(s.s, sub)
			default:
				i = strings.Index(s.s, sub)
			}
			if i < 0 {
				if name == "index" {
					return nil, errors.New("substring not found")
				}
				return int64(-1), nil
			}
			return int64(utf8.RuneCountInString(s.s[:i])), nil
		})
	case "join":
		return method(func(args []any, _ map[string]any) (any, error) {
			if len(args) == 0 {
				return nil, errors.New("join needs an argument")
			}
			items, err := iterate(args[0])
			if err != nil {
				return nil, err
			}
			parts := make([]str, 0, 2*len(items))
			for i, it := range items {
				if i > 0 {
					parts = append(parts, s)
				}
				parts = append(parts, toStr(it))
			}
			return concat(parts...), nil
		})
	case "isspace", "isdigit", "isalpha", "isalnum", "islower", "isupper":
		return method(func([]any, map[string]any) (any, error) {
			if s.s == "" {
				return false, nil
			}
			for _, r := range s.s {
				ok := false
				switch name {
				case "isspace":
					ok = isPySpace(r)
				case "isdigit":
					ok = unicode.IsDigit(r)
				case "isalpha":
					ok = unicode.IsLetter(r)
				case "isalnum":
					ok = unicode.IsLetter(r) || unicode.IsNumber(r)
				case "islower":
					ok = !unicode.IsUpper(r)
				case "isupper":
					ok = !unicode.IsLower(r)
				}
				if !ok {
					return false, nil
				}
			}
			return true, nil
		})
	}
	return nil
}

// pySplit is str.split / str.rsplit.
func pySplit(s str, sep any, limit int64, fromRight bool) (any, error) {
	var out []any
	if sep == nil {
		// Runs of whitespace, no empty strings.
		var fields [][2]int
		start := -1
		for i, r := range s.s {
			if isPySpace(r) {
				if start >= 0 {
					fields = append(fields, [2]int{start, i})
					start = -1
				}
			} else if start < 0 {
				start = i
			}
		}
		if start >= 0 {
			fields = append(fields, [2]int{start, len(s.s)})
		}
		if limit >= 0 && int64(len(fields)) > limit+1 {
			if fromRight {
				k := len(fields) - int(limit)
				first := [2]int{fields[0][0], fields[k-1][1]}
				fields = append([][2]int{first}, fields[k:]...)
			} else {
				fields = append(fields[:limit], [2]int{fields[limit][0], len(strings.TrimRightFunc(s.s, isPySpace))})
			}
		}
		for _, f := range fields {
			out = append(out, s.sub(f[0], f[1]))
		}
		return out, nil
	}
	sp := toStr(sep).s
	if sp == "" {
		return nil, errors.New("empty separator")
	}
	var cuts []int // start offsets of separators used
	if fromRight {
		end := len(s.s)
		for limit < 0 || int64(len(cuts)) < limit {
			i := strings.LastIndex(s.s[:end], sp)
			if i < 0 {
				break
			}
			cuts = append([]int{i}, cuts...)
			end = i
		}
	} else {
		from := 0
		for limit < 0 || int64(len(cuts)) < limit {
			i := strings.Index(s.s[from:], sp)
			if i < 0 {
				break
			}
			cuts = append(cuts, from+i)
			from += i + len(sp)
		}
	}
	last := 0
	for _, c := range cuts {
		out = append(out, s.sub(last, c))
		last = c + len(sp)
	}
	out = append(out, s.sub(last, len(s.s)))
	return out, nil
}

func dictMethod(d *dict, name string) any {
	switch name {
	case "items":
		return method(func([]any, map[string]any) (any, error) {
			out := make([]any, len(d.keys))
			for i, k := range d.keys {
				out[i] = []any{plain(k), d.m[k]}
			}
			return out, nil
		})
	case "keys":
		return method(func([]any, map[string]any) (any, error) {
			out := make([]any, len(d.keys))
			for i, k := range d.keys {
				out[i] = plain(k)
			}
			return out, nil
		})
	case "values":
		return method(func([]any, map[string]any) (any, error) {
			out := make([]any, len(d.keys))
			for i, k := range d.keys {
				out[i] = d.m[k]
			}
			return out, nil
		})
	case "get":
		return method(func(args []any, _ map[string]any) (any, error) {
			if len(args) == 0 {
				return nil, errors.New("get needs a key")
			}
			if v, ok := d.m[toStr(args[0]).s]; ok {
				return v, nil
			}
			if len(args) > 1 {
				return args[1], nil
			}
			return nil, nil
		})
	}
	return nil
}

func listMethod(l []any, name string) any {
	switch name {
	case "index":
		return method(func(args []any, _ map[string]any) (any, error) {
			if len(args) == 0 {
				return nil, errors.New("index needs an argument")
			}
			for i, x := range l {
				if equal(x, args[0]) {
					return int64(i), nil
				}
			}
			return nil, errors.New("value is not in list")
		})
	case "count":
		return method(func(args []any, _ map[string]any) (any, error) {
			n := int64(0)
			for _, x := range l {
				if len(args) > 0 && equal(x, args[0]) {
					n++
				}
			}
			return n, nil
		})
	}
	return nil
}
