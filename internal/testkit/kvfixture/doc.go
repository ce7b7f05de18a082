// Package kvfixture holds the tests of the retrieval fixture model
// (testdata/models/retrieval.gguf, scripts/fixtures/retrieval): its greedy
// answers agree with llama.cpp's, it retrieves with the whole cache, and
// `isagi eval kv`'s measurement runs on it at a small size. It has no code
// of its own.
package kvfixture
