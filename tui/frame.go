package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// textFrame is the shortest interval between two full redraws while keys
// pour in (about 60 a second, the renderer's own rate).
const textFrame = 16 * time.Millisecond

// redrawMsg asks for the full redraw that a burst of text deferred.
type redrawMsg struct{}

// frameLimiter keeps a paste cheap. Bubble Tea calls View after every
// message, and a paste in a terminal without bracketed paste arrives as one
// message per word: a 10,000-word paste would lay out the whole screen
// 20,000 times. While keys keep arriving faster than textFrame, View
// returns the previous frame and one redraw is scheduled for when the burst
// pauses; every other message renders at once.
type frameLimiter struct {
	last     string    // the last full render
	at       time.Time // when it was made
	deferred bool      // View may return last
	pending  bool      // a redrawMsg is on its way
}

func (f *frameLimiter) rendered(s string) {
	f.last, f.at = s, time.Now()
}

// throttle is called after a key: it defers the next View when
// the last frame is recent, and makes sure a redraw follows.
func (f *frameLimiter) throttle() tea.Cmd {
	if time.Since(f.at) >= textFrame {
		return nil
	}
	f.deferred = true
	if f.pending {
		return nil
	}
	f.pending = true
	return tea.Tick(textFrame, func(time.Time) tea.Msg { return redrawMsg{} })
}
