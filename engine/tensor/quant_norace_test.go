//go:build !race

package tensor

// quantRace is true under the race detector, which slows the tests' big
// loops ~10×; they shrink their sample sizes then.
const quantRace = false
