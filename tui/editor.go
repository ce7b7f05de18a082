package tui

import (
	"sort"
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
)

// editor is the message box: a multi-line text buffer with a cursor, soft
// word wrap and a fixed-height window that follows the cursor.
//
// It replaces bubbles' textarea for two reasons that a user hits at once.
// First, typed text must stay text: Bubble Tea delivers a burst of printable
// characters between spaces as one KeyMsg whose String() is the characters
// themselves, so a word like "enter", "up" or "home" matched the textarea's
// (and our) key bindings and acted as that key. The editor looks at a
// message's type, never at the spelling of typed runes. Second, a large
// paste must stay cheap: the textarea re-wraps the whole line on every
// keystroke and memoises each version (a 10,000-word paste grew it to
// gigabytes) and keeps at most 10,000 lines. Here an insert at the cursor
// copies only the text after it, and the wrap is computed once per version
// of the buffer, when it is drawn, so memory stays proportional to the text.
type editor struct {
	buf    []rune // the text; '\n' separates lines
	cur    int    // cursor: an index into buf, 0..len(buf)
	width  int    // columns for text (the prompt is extra)
	height int    // visible rows
	top    int    // first visible row of the wrapped text
	goal   int    // column kept by up/down, -1 when unset

	placeholder string

	// wrap cache: rows for version ver at width wrapW. dirty is the lowest
	// index edited since; rows of the lines before it stay valid, so
	// text added at the end (typing, a paste) is wrapped once, not once per
	// redraw.
	ver, wrapVer int
	wrapW        int
	rows         []row
	dirty        int
}

// row is one visual line: buf[start:end], then a newline or a soft break.
type row struct{ start, end int }

// promptWidth is the width of the "› " prompt before every row.
const promptWidth = 2

// tabWidth is how many cells a tab takes on screen. The buffer keeps the
// tab itself: pasted code must reach the model as it was pasted.
const tabWidth = 4

func newEditor(placeholder string) editor {
	return editor{placeholder: placeholder, goal: -1, width: 20, height: 1, wrapVer: -1}
}

func (e *editor) setSize(w, h int) {
	e.width = max(w-promptWidth, 2)
	e.height = max(h, 1)
}

// value is the text.
func (e *editor) value() string { return string(e.buf) }

// reset empties the buffer, keeping its capacity.
func (e *editor) reset() {
	e.buf = e.buf[:0]
	e.cur, e.top, e.goal = 0, 0, -1
	e.edited(0)
}

// edited records a change at index p.
func (e *editor) edited(p int) {
	e.ver++
	e.dirty = min(e.dirty, p)
}

// insert puts s at the cursor. Carriage returns become newlines (a paste
// from a terminal without bracketed paste sends them), other control
// characters but tab and newline are dropped.
func (e *editor) insert(rs []rune) {
	n := 0
	for i, r := range rs {
		if r == '\r' {
			if i+1 < len(rs) && rs[i+1] == '\n' {
				continue
			}
			r = '\n'
		}
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			continue
		}
		rs[n] = r
		n++
	}
	rs = rs[:n]
	if len(rs) == 0 {
		return
	}
	tail := len(e.buf) - e.cur
	e.buf = append(e.buf, rs...) // grow; then shift the tail right
	if tail > 0 {
		copy(e.buf[e.cur+len(rs):], e.buf[e.cur:e.cur+tail])
		copy(e.buf[e.cur:], rs)
	}
	e.edited(e.cur)
	e.cur += len(rs)
	e.goal = -1
}

// insertString is insert for a string (the caller's runes are not reused).
func (e *editor) insertString(s string) { e.insert([]rune(s)) }

// remove deletes buf[a:b] and puts the cursor at a.
func (e *editor) remove(a, b int) {
	a, b = max(a, 0), min(b, len(e.buf))
	if a >= b {
		return
	}
	e.buf = append(e.buf[:a], e.buf[b:]...)
	e.cur = a
	e.goal = -1
	e.edited(a)
}

func (e *editor) lineStart(p int) int {
	for p > 0 && e.buf[p-1] != '\n' {
		p--
	}
	return p
}

func (e *editor) lineEnd(p int) int {
	for p < len(e.buf) && e.buf[p] != '\n' {
		p++
	}
	return p
}

// isWordRune: a combining mark belongs to the word of its letter, so a
// word move never stops inside "é" written as e + U+0301.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || unicode.Is(unicode.M, r)
}

func (e *editor) wordLeft(p int) int {
	for p > 0 && !isWordRune(e.buf[p-1]) {
		p--
	}
	for p > 0 && isWordRune(e.buf[p-1]) {
		p--
	}
	return p
}

func (e *editor) wordRight(p int) int {
	for p < len(e.buf) && !isWordRune(e.buf[p]) {
		p++
	}
	for p < len(e.buf) && isWordRune(e.buf[p]) {
		p++
	}
	return p
}

// update applies one key. Printable input (typed, or pasted with or without
// bracketed paste) is inserted as text whatever it spells; named keys edit.
// It reports whether the key was used.
func (e *editor) update(msg tea.KeyMsg) bool {
	if msg.Type == tea.KeyRunes && (!msg.Alt || msg.Paste) {
		e.insert(append([]rune(nil), msg.Runes...))
		return true
	}
	if msg.Type == tea.KeySpace && !msg.Alt {
		e.insert([]rune{' '})
		return true
	}
	if msg.Type == tea.KeyTab {
		e.insert([]rune{'\t'})
		return true
	}
	switch msg.String() {
	case "left", "ctrl+b":
		if e.cur > 0 {
			e.cur = prevCluster(e.buf, e.cur)
		}
	case "right", "ctrl+f":
		if e.cur < len(e.buf) {
			e.cur = nextCluster(e.buf, e.cur)
		}
	case "alt+left", "ctrl+left", "alt+b":
		e.cur = e.wordLeft(e.cur)
	case "alt+right", "ctrl+right", "alt+f":
		e.cur = e.wordRight(e.cur)
	case "home", "ctrl+a":
		e.cur = e.lineStart(e.cur)
	case "end", "ctrl+e":
		e.cur = e.lineEnd(e.cur)
	case "ctrl+home", "alt+<":
		e.cur = 0
	case "ctrl+end", "alt+>":
		e.cur = len(e.buf)
	case "up", "ctrl+n":
		if msg.String() == "ctrl+n" {
			e.vertical(1)
		} else {
			e.vertical(-1)
		}
		return true
	case "down":
		e.vertical(1)
		return true
	case "backspace", "ctrl+h": // a whole cluster: half an emoji is no character
		if e.cur > 0 {
			e.remove(prevCluster(e.buf, e.cur), e.cur)
		}
	case "delete", "ctrl+d":
		if e.cur < len(e.buf) {
			e.remove(e.cur, nextCluster(e.buf, e.cur))
		}
	case "alt+backspace", "ctrl+w":
		e.remove(e.wordLeft(e.cur), e.cur)
	case "alt+delete", "alt+d":
		e.remove(e.cur, e.wordRight(e.cur))
	case "ctrl+u":
		e.remove(e.lineStart(e.cur), e.cur)
	case "ctrl+k":
		if end := e.lineEnd(e.cur); end > e.cur {
			e.remove(e.cur, end)
		} else {
			e.remove(e.cur, e.cur+1) // at a line's end: join the next line
		}
	default:
		return false
	}
	e.goal = -1
	return true
}

// newline inserts a line break at the cursor.
func (e *editor) newline() { e.insert([]rune{'\n'}) }

// wrap returns the visual rows of the buffer at the current width, computed
// once per version. Lines break after the last space that fits, or inside
// a word longer than the width, always between grapheme clusters (width.go).
// One column is kept free for the cursor.
func (e *editor) wrap() []row {
	w := max(e.width-1, 1)
	if e.wrapVer == e.ver && e.wrapW == w {
		return e.rows
	}
	// Keep the rows of the lines before the first edit; wrap from the
	// start of the line that holds it.
	from := 0
	if e.wrapW == w && e.wrapVer >= 0 {
		from = e.lineStart(min(e.dirty, len(e.buf)))
	}
	k := sort.Search(len(e.rows), func(i int) bool { return e.rows[i].start >= from })
	if k == len(e.rows) || e.rows[k].start != from {
		k, from = 0, 0 // not a line start in the old rows: wrap it all
	}
	rows := e.rows[:k]
	start, col, lastSpace := from, 0, -1
	for i := from; i < len(e.buf); {
		r := e.buf[i]
		if r == '\n' {
			rows = append(rows, row{start, i})
			i++
			start, col, lastSpace = i, 0, -1
			continue
		}
		n, cw := clusterAt(e.buf, i)
		for col+cw > w && i > start { // twice at most: after a word, then before r
			brk := i
			if lastSpace >= start && lastSpace+1 < i {
				brk = lastSpace + 1
			}
			rows = append(rows, row{start, brk})
			start, lastSpace = brk, -1
			col = colOf(e.buf, start, i)
		}
		if n == 1 && (r == ' ' || r == '\t') { // a space with a mark on it is no break
			lastSpace = i
		}
		col += cw
		i += n
	}
	rows = append(rows, row{start, len(e.buf)})
	e.rows, e.wrapVer, e.wrapW, e.dirty = rows, e.ver, w, len(e.buf)
	return rows
}

// cursorRow is the index of the row holding the cursor: the last row that
// starts at or before it (a cursor at a soft break belongs to the next row).
func (e *editor) cursorRow(rows []row) int {
	lo, hi := 0, len(rows)-1
	for lo < hi { // binary search: rows are in order
		mid := (lo + hi + 1) / 2
		if rows[mid].start <= e.cur {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// colOf is the width in cells of buf[a:b], a and b between clusters.
func colOf(buf []rune, a, b int) int {
	c := 0
	for i := a; i < b; {
		n, w := clusterAt(buf, i)
		c += w
		i += n
	}
	return c
}

// vertical moves the cursor d rows, keeping its column.
func (e *editor) vertical(d int) {
	rows := e.wrap()
	ri := e.cursorRow(rows)
	if e.goal < 0 {
		e.goal = colOf(e.buf, rows[ri].start, e.cur)
	}
	ni := ri + d
	if ni < 0 {
		e.cur = 0
		return
	}
	if ni >= len(rows) {
		e.cur = len(e.buf)
		return
	}
	r := rows[ni]
	p, c := r.start, 0
	for p < r.end {
		n, cw := clusterAt(e.buf, p)
		if c+cw > e.goal {
			break
		}
		c += cw
		p += n
	}
	// A soft-wrapped row's last position is the next row's first.
	if p == r.end && ni+1 < len(rows) && rows[ni+1].start == r.end && p > r.start {
		p = prevCluster(e.buf, p)
	}
	e.cur = p
}

// view draws the visible rows with a "› " prompt on the first row of the
// text, the cursor in reverse video, and the placeholder when empty.
func (e *editor) view() string {
	var b strings.Builder
	if len(e.buf) == 0 {
		b.WriteString("› ")
		b.WriteString(theme.Cursor.Render(" "))
		b.WriteString(theme.Dim.Render(truncateCells(e.placeholder, e.width-1)))
		for i := 1; i < e.height; i++ {
			b.WriteString("\n")
		}
		return b.String()
	}
	rows := e.wrap()
	ri := e.cursorRow(rows)
	if ri < e.top {
		e.top = ri
	}
	if ri >= e.top+e.height {
		e.top = ri - e.height + 1
	}
	e.top = min(e.top, max(len(rows)-e.height, 0))
	for i := e.top; i < e.top+e.height; i++ {
		if i > e.top {
			b.WriteByte('\n')
		}
		if i >= len(rows) {
			continue
		}
		if i == 0 {
			b.WriteString("› ")
		} else {
			b.WriteString("  ")
		}
		r := rows[i]
		for p := r.start; p < r.end; {
			// A cluster at a time: the cursor's reverse video around
			// half of one would split it, and the terminal would draw
			// the halves wider than the row was measured.
			n, _ := clusterAt(e.buf, p)
			n = min(n, r.end-p)
			s := string(e.buf[p : p+n])
			if e.buf[p] == '\t' {
				s = strings.Repeat(" ", tabWidth)
			}
			if p <= e.cur && e.cur < p+n {
				if e.buf[p] == '\t' {
					s = theme.Cursor.Render(" ") + strings.Repeat(" ", tabWidth-1)
				} else {
					s = theme.Cursor.Render(s)
				}
			}
			b.WriteString(s)
			p += n
		}
		if i == ri && e.cur == r.end {
			b.WriteString(theme.Cursor.Render(" "))
		}
	}
	return b.String()
}
