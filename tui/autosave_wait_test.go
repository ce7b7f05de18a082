package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestEnterDuringAutosaveWaits: a line entered while the save after a turn
// runs is neither refused ("must wait") nor lost: it stays in the input and
// is submitted when the save ends, a command and a message alike.
func TestEnterDuringAutosaveWaits(t *testing.T) {
	for _, line := range []string{"/help", "hello"} {
		m := New(newFake(), Options{Version: "v0.0.0-test"})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		// An autosave holds the gate, as sessionFiles.autosave leaves it
		// (its worker is not needed here: the test ends it by hand).
		m.gate.job = &job{id: 1, label: "saving /tmp/x.miku", autosave: true}
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(line)})
		m.Update(tea.KeyMsg{Type: tea.KeyEnter})
		if !m.afterSave || m.input.value() != line || strings.Contains(m.status, "must wait") {
			t.Fatalf("%q during the autosave: held %v, input %q, status %q", line, m.afterSave, m.input.value(), m.status)
		}
		m.gate.job = nil // onJobDone, before the result's handler
		m.Update(saveDoneMsg{path: "/tmp/x.miku", auto: true})
		if m.afterSave || m.input.value() != "" {
			t.Fatalf("%q after the autosave: still held %v, input %q", line, m.afterSave, m.input.value())
		}
		if line == "hello" && (m.gate.gen == nil || m.sent != "hello") {
			t.Fatalf("the held message was not sent (sent %q)", m.sent)
		}
		m.gate.cancel()
		m.gate.wg.Wait()
	}
}
