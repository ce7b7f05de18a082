//go:build !race

package generate

// raceEnabled is true under the race detector, which slows the
// statistical test's 20,000-draw loops ~15×: it runs without the detector
// instead (`make unit` runs it so).
const raceEnabled = false
