// Package miku reads and writes .miku session files: a versioned,
// checksummed container written atomically. It never imports the TUI.
//
// Nothing is implemented yet; the ".miku session files" issue builds it.
package miku
