//go:build race

package cu

// raceEnabled: the race detector makes sync.Pool drop a quarter of what is
// put back (both purego's pool and the Driver's), so driver calls allocate
// now and then and the zero-allocation checks do not apply.
const raceEnabled = true
