//go:build !unix

package specialfile

import "testing"

// fifo reports that this system has no FIFOs to test with.
func fifo(t testing.TB, dir string) (string, bool) { return "", false }
