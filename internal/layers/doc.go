// Package layers holds the test of the house's layer order: which layers
// there are, which packages sit in each, and which imports are refused
// (docs/architecture.md). It has no code of its own; the order is written
// down once, in layers_test.go.
package layers
