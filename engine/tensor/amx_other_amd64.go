//go:build amd64 && !linux

package tensor

// amxPermitted: only Linux's permission request is known here, so other
// systems do not use AMX.
func amxPermitted() bool { return false }
