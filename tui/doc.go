// Package tui is the bubbletea terminal interface: one sub-model per pane,
// talking to the engine only through its public API.
//
// Nothing is implemented yet; the app issue builds it.
package tui
