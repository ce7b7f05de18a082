// Package cvinterop holds the tests that hold ISAGI's steering vectors to
// llama.cpp's: a control vector written by engine/steer and loaded by
// llama-server, and one made by llama-cvector-generator and loaded by
// ISAGI, must give the same greedy replies on both sides, on the kjv and
// archs fixtures, token for token up to the first near-tie.
//
// llama.cpp is the developer's own native build, outside the repository:
// LLAMA_BIN names its bin folder (as for scripts/bench-peer.sh and
// scripts/serve-peer.sh), with llama-server in it, and optionally
// llama-cvector-generator for the generator's test. Without LLAMA_BIN the
// tests skip with one line. The servers listen on 127.0.0.1 only, and the
// tests dial nothing else. docs/geometry.md ("Steering vectors and
// llama.cpp") records what they measured. The package has no code of its
// own.
package cvinterop
