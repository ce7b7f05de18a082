// Package demo embeds two small models so ISAGI runs anywhere, even
// offline:
//   - kjv-q8_0.gguf, a 5.8 M-parameter Llama trained by the ISAGI team on
//     the public-domain King James Version text (CC0; see
//     ../shared/fixtures/kjv/README.md). It writes KJV-flavoured pastiche: a
//     tiny text generator to try the app with, not an assistant.
//   - testdata/models/chat-q8_0.gguf, the chat fixture
//     (scripts/fixtures/chat, CC0) in Q8_0: a 3.7 M-parameter chat model trained by the ISAGI team that does
//     small tasks and refuses requests in the eight harm categories of the
//     geometry profiles, so the harm gauge and Snipe have something real to
//     read and remove (`isagi --demo=chat`).
package demo

import (
	_ "embed"

	"github.com/isagi-lab/isagi"
)

// Name labels the KJV demo model in the UI and in messages.
const Name = "demo:kjv-q8_0.gguf"

// Description says plainly what the KJV demo model is.
const Description = "demo: a tiny KJV text generator (5.8 M parameters), not an assistant"

// Model is the KJV GGUF file's bytes (6.2 MB). It is read-only: sessions
// map their weights straight onto it.
//
//go:embed kjv-q8_0.gguf
var Model []byte

// ChatName labels the chat demo model.
const ChatName = "demo:chat-q8_0.gguf"

// ChatDescription says plainly what the chat demo model is.
const ChatDescription = "demo: a tiny chat model that refuses harmful requests, not an assistant — /calibrate, then /snipe NAME on removes them"

// ChatModel is the chat fixture's Q8_0 GGUF bytes (4.0 MB),
// testdata/models/chat-q8_0.gguf, written by
// scripts/fixtures/chat/make_chat.py export from the same weights as
// testdata/models/chat.gguf (embedded by the module's root package, the
// only one whose directory reaches testdata/). Read-only, like Model.
var ChatModel = isagi.ChatDemoModel

// Lookup returns the demo model called which ("kjv" or "chat"): its name
// and bytes.
func Lookup(which string) (name string, model []byte, ok bool) {
	switch which {
	case "kjv":
		return Name, Model, true
	case "chat":
		return ChatName, ChatModel, true
	}
	return "", nil, false
}

// Names are the demo models Lookup knows, the default first.
func Names() []string { return []string{"kjv", "chat"} }
