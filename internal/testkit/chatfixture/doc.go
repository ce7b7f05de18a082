// Package chatfixture holds the tests of the chat fixture model,
// testdata/models/chat.gguf: a 3.7 M-parameter llama with a ChatML template
// and its own byte-level BPE tokenizer, trained by
// scripts/fixtures/chat/make_chat.py to answer small benign tasks and to
// refuse requests in the eight harm categories of ISAGI's geometry profiles
// (scripts/fixtures/chat/README.md says how it was made and what it
// scores).
//
// The tests run the model through ISAGI's own engine (tokenizer, chat
// template, forward pass) and check that its greedy replies are llama.cpp's
// (scripts/fixtures/chat/llamacpp_replies.json) and that it refuses and
// answers as the README's figures say. The package has no code of its own.
package chatfixture
