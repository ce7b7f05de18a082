package tensor

import "syscall"

// amxPermitted asks Linux for the AMX tile data state (arch_prctl
// ARCH_REQ_XCOMP_PERM for XTILEDATA, Linux 5.16 and later): a process
// must before its first tile instruction, which otherwise faults. The
// grant is for the whole process and asking again is harmless; a kernel
// that refuses (too old, or the state disabled) leaves AMX unused.
func amxPermitted() bool {
	const archReqXcompPerm, xfeatureXtiledata = 0x1023, 18
	_, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXtiledata, 0)
	return errno == 0
}
