// Package kjv2fixture holds the tests of the second KJV model,
// testdata/models/kjv2-q8_0.gguf: the kjv fixture's architecture, text,
// split and tokenizer (../shared/fixtures/kjv), trained again from scratch
// with another seed by scripts/fixtures/kjv2/make_kjv2.py. Two
// independently trained models with one vocabulary are what
// `isagi eval interchange` compares (docs/geometry.md, "UGT across two
// independently trained models").
//
// The tests check that the file is that model (shape and vocabulary equal to
// kjv's) and that ISAGI's engine decodes it as PyTorch does
// (scripts/fixtures/kjv2/golden.json). The package has no code of its own.
package kjv2fixture
