// Package demo embeds a small model so ISAGI runs anywhere, even offline:
// kjv-q8_0.gguf, a 5.8 M-parameter Llama trained by the ISAGI team on the
// public-domain King James Version text (CC0; see
// ../shared/fixtures/kjv/README.md). It writes KJV-flavoured pastiche: a tiny
// text generator to try the app with, not an assistant.
package demo

import _ "embed"

// Name labels the demo model in the UI and in messages.
const Name = "demo:kjv-q8_0.gguf"

// Description says plainly what the demo model is.
const Description = "demo: a tiny KJV text generator (5.8 M parameters), not an assistant"

// Model is the GGUF file's bytes (6.2 MB). It is read-only: sessions map
// their weights straight onto it.
//
//go:embed kjv-q8_0.gguf
var Model []byte
