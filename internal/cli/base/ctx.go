package base

import (
	"fmt"
	"path/filepath"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/model"
)

// ctxCapNote is the warning for a --ctx above the model's context window.
func ctxCapNote(asked int, name string, window int) string {
	return fmt.Sprintf("--ctx %d is above %s's context window (%d tokens); using %d", asked, name, window, window)
}

// ModelLabel names a loaded model in messages: its general.name, else the
// file's name.
func ModelLabel(m *model.Model, f *gguf.File) string {
	if m.Name != "" {
		return m.Name
	}
	return filepath.Base(f.Path)
}

// ContextFullError says why a scripted run stopped short: its context of
// capacity tokens filled before -n tokens or an end-of-generation token
// (generated is 0 when the prompt alone did not fit). It wraps
// model.ErrContextFull, and main exits 1 for it: a script must not take a
// cut-off reply for a finished one. The hint names what the user can
// change — --ctx while it is below the model's window, the prompt or -n
// once the window is all there is.
func ContextFullError(capacity, window int, name string, generated int) error {
	var msg string
	switch {
	case generated == 0 && capacity < window:
		msg = fmt.Sprintf("the prompt does not fit the %d-token context (raise --ctx, up to %s's %d)", capacity, name, window)
	case generated == 0:
		msg = fmt.Sprintf("the prompt does not fit %s's whole context window of %d tokens (shorten it)", name, capacity)
	case capacity < window:
		msg = fmt.Sprintf("the %d-token context filled after %d generated tokens (raise --ctx, up to %s's %d)", capacity, generated, name, window)
	default:
		msg = fmt.Sprintf("the context filled after %d generated tokens: %d tokens is %s's whole context window (shorten the prompt or lower -n)", generated, capacity, name)
	}
	return contextFull("stopped: " + msg)
}

// contextFull is ContextFullError's error: its message is the whole story,
// and errors.Is finds model.ErrContextFull behind it.
type contextFull string

// Error is the whole story.
func (e contextFull) Error() string { return string(e) }

// Unwrap is model.ErrContextFull.
func (e contextFull) Unwrap() error { return model.ErrContextFull }
