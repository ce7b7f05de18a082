// Package tui is ISAGI's terminal interface, built on Bubble Tea: a chat
// viewport that streams the reply and renders finished answers as markdown,
// a multi-line input, and side panes for performance, hardware telemetry and
// the model.
//
// The root Model (tui.go) owns one sub-model per pane, each in its own file
// (chat.go, input.go, perf.go, hardware.go, modelpane.go, geometry.go,
// kvpane.go, manifold.go, help.go), routes messages to them and lays their
// views out with lipgloss. Each pane changes only in its own Update
// (panes.go): the root routes keys by its key map and by what has the
// focus — the help overlay while shown, the chat its scroll keys, the input
// the rest — and broadcasts the reply's stream to every pane; it reads the
// panes back through their views, never their fields. Styles live in
// theme.go and key bindings in keys.go, so the help overlay is generated
// from the same declarations the panes match against. Slash commands are
// a table (commands.go) that each feature fills with its own, beside their
// handlers. ctrl+c stops, clears, and only pressed twice quits, saving
// first or asking (quit.go); every width on screen is measured as lipgloss
// lays it out, by grapheme cluster (width.go).
//
// The TUI talks to the model only through the Session interface (satisfied by
// *session.Session). A reply is generated on its own goroutine; its pieces
// are collected under a mutex and delivered to Update as typed messages at
// most ~20 times a second (stream.go), so neither side ever waits on the
// other and redrawing cannot slow decoding. With GPU telemetry or a thermal
// controller, each reply also runs a gpu.Meter, stopped with it: the
// Hardware pane and the controller follow the load of generation, and the
// Perf pane shows tokens per joule over the decode (docs/gpu.md).
package tui
