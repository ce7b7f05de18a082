// Package isagi holds the files the binary embeds from the repository's
// own directories that no package directory can reach: the chat demo model
// lives with the fixture models our scripts train (testdata/models), and a
// //go:embed pattern cannot leave its package's directory. Package demo
// serves it; nothing else should import this package.
package isagi

import _ "embed"

// ChatDemoModel is testdata/models/chat-q8_0.gguf, the chat fixture in
// Q8_0 (scripts/fixtures/chat/make_chat.py export writes it beside the F16
// file): the model `isagi --demo=chat` runs.
//
//go:embed testdata/models/chat-q8_0.gguf
var ChatDemoModel []byte
