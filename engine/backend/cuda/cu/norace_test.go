//go:build !race

package cu

// raceEnabled is false: see race_test.go.
const raceEnabled = false
