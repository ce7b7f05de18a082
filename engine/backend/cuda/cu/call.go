package cu

// The callN methods are how every driver function is called. They exist, one
// per argument count, for two reasons.
//
// Safety: each is marked go:uintptrescapes, so an unsafe.Pointer converted to
// uintptr in the argument list of a callN call is moved to the heap (which
// does not move) and kept alive until the call returns, as the
// unsafe.Pointer rules require for a pointer handed to C. Out-parameters
// (&v) therefore cost one small allocation; the calls on hot paths (copies,
// memsets, launches, synchronisation) have none.
//
// No allocation: purego.SyscallN is variadic and its slice escapes, so a
// fresh slice per call would be one allocation per call. The argument slice
// comes from a per-Driver sync.Pool instead.

// argBuf is one call's argument array, the most any call here takes
// (cuLaunchKernel's 11).
type argBuf [11]uintptr

// buf takes an argument array from the pool (a new one when the pool is
// empty, as after a GC or on a zero Driver).
func (d *Driver) buf() *argBuf {
	if b, ok := d.bufs.Get().(*argBuf); ok {
		return b
	}
	return new(argBuf)
}

// invoke calls fn with the first n arguments in b and returns b to the pool.
func (d *Driver) invoke(fn uintptr, b *argBuf, n int) Result {
	r := syscallN(fn, b[:n])
	d.bufs.Put(b)
	return r
}

func (d *Driver) call0(fn uintptr) Result { return syscallN(fn, nil) }

//go:uintptrescapes
func (d *Driver) call1(fn, a1 uintptr) Result {
	b := d.buf()
	b[0] = a1
	return d.invoke(fn, b, 1)
}

//go:uintptrescapes
func (d *Driver) call2(fn, a1, a2 uintptr) Result {
	b := d.buf()
	b[0], b[1] = a1, a2
	return d.invoke(fn, b, 2)
}

//go:uintptrescapes
func (d *Driver) call3(fn, a1, a2, a3 uintptr) Result {
	b := d.buf()
	b[0], b[1], b[2] = a1, a2, a3
	return d.invoke(fn, b, 3)
}

//go:uintptrescapes
func (d *Driver) call4(fn, a1, a2, a3, a4 uintptr) Result {
	b := d.buf()
	b[0], b[1], b[2], b[3] = a1, a2, a3, a4
	return d.invoke(fn, b, 4)
}

//go:uintptrescapes
func (d *Driver) call5(fn, a1, a2, a3, a4, a5 uintptr) Result {
	b := d.buf()
	b[0], b[1], b[2], b[3], b[4] = a1, a2, a3, a4, a5
	return d.invoke(fn, b, 5)
}

//go:uintptrescapes
func (d *Driver) call11(fn, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11 uintptr) Result {
	b := d.buf()
	b[0], b[1], b[2], b[3], b[4], b[5] = a1, a2, a3, a4, a5, a6
	b[6], b[7], b[8], b[9], b[10] = a7, a8, a9, a10, a11
	return d.invoke(fn, b, 11)
}
