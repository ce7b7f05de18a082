//go:build !linux

package tensor

// adviseHuge does nothing here: transparent huge pages are Linux's (see
// huge_linux.go).
func adviseHuge([]byte) {}

// hugePages reports that adviseHuge does nothing here.
const hugePages = false
