package tui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Every width in the TUI is measured the way lipgloss lays the panes out:
// charmbracelet/x/ansi's grapheme-cluster width. A ZWJ emoji sequence
// ("👩‍💻") is one cluster two cells wide and a letter with a combining
// accent one cell — as terminals that cluster graphemes draw them — where a
// sum of per-rune widths (go-runewidth's RuneWidth) says four and one. Two
// measures in one frame put a row of the input or a pane line a few cells
// off from what lipgloss padded it to, and the borders beside it move.

// clusterAt returns the length in runes and the width in cells of the
// grapheme cluster that starts at buf[i] (i < len(buf)). A tab is
// tabWidth cells; a newline none.
func clusterAt(buf []rune, i int) (n, w int) {
	r := buf[i]
	switch {
	case r == '\t':
		return 1, tabWidth
	case r == '\n':
		return 1, 0
	case r < utf8.RuneSelf && (i+1 == len(buf) || buf[i+1] < utf8.RuneSelf):
		// ASCII followed by ASCII (or nothing) is a cluster of its own:
		// the common case, kept cheap for a pasted megabyte.
		if r < 0x20 || r == 0x7f {
			return 1, 0
		}
		return 1, 1
	}
	// Decode a window of runes; widen it while the cluster fills it.
	for k := 8; ; k *= 2 {
		end := min(i+k, len(buf))
		c, _, cw, _ := ansi.FirstGraphemeCluster(string(buf[i:end]), -1)
		n = max(utf8.RuneCountInString(c), 1)
		if i+n < end || end == len(buf) {
			return n, cw
		}
	}
}

// clusterScan is how far back from a position a cluster boundary is looked
// for before the scan gives up and trusts the position it reached.
const clusterScan = 256

// boundaryBefore returns an index at or before p (within buf) where a
// grapheme cluster starts: a line start or an ASCII character (a cluster
// never begins with a mark or a joiner, and an ASCII character never
// continues one).
func boundaryBefore(buf []rune, p int) int {
	for lo := max(p-clusterScan, 0); p > lo; p-- {
		if buf[p] < utf8.RuneSelf || buf[p-1] == '\n' {
			return p
		}
	}
	return p
}

// nextCluster is the end of the cluster that holds buf[p] (p < len(buf)):
// where the cursor goes on →, and what delete removes.
func nextCluster(buf []rune, p int) int {
	q := boundaryBefore(buf, p)
	for q <= p {
		n, _ := clusterAt(buf, q)
		q += n
	}
	return min(q, len(buf))
}

// prevCluster is the start of the cluster before position p (p > 0): where
// the cursor goes on ←, and what backspace removes back to.
func prevCluster(buf []rune, p int) int {
	q := boundaryBefore(buf, p-1)
	start := q
	for q < p {
		start = q
		n, _ := clusterAt(buf, q)
		q += n
	}
	return start
}

// padCells pads s with spaces to w cells.
func padCells(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

// truncateCells cuts s to at most w cells, with an ellipsis when it cuts.
func truncateCells(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// minHangRoom is the narrowest description column worth a hanging indent;
// narrower, a table row wraps from the left edge like any text.
const minHangRoom = 16

// hangWrap wraps the rows of a two-column listing (/set, /show) to w cells
// so that a long description continues under its own column, not at the
// left edge where it would read as the next row's name. A row is a line
// whose first hang cells end in the two spaces that separate the columns;
// other lines (a heading) are left for the caller's style to wrap.
func hangWrap(text string, w, hang int) string {
	if hang <= 0 || w-hang < minHangRoom {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) <= w {
			continue
		}
		head := ansi.Truncate(l, hang, "")
		if ansi.StringWidth(head) != hang || !strings.HasSuffix(head, "  ") {
			continue
		}
		body := ansi.Wrap(ansi.TruncateLeft(l, hang, ""), w-hang, "")
		pad := strings.Repeat(" ", hang)
		var b strings.Builder
		for j, part := range strings.Split(body, "\n") {
			if j > 0 {
				b.WriteString("\n" + pad)
			}
			b.WriteString(strings.TrimRight(part, " "))
		}
		lines[i] = head + b.String()
	}
	return strings.Join(lines, "\n")
}
