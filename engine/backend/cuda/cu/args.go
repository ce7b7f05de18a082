package cu

import (
	"slices"
	"unsafe"
)

// maxArgs is how many kernel arguments an Args holds; no kernel of the
// backend comes close.
const maxArgs = 32

// Args packs the arguments of a kernel launch without allocating. The driver
// wants kernelParams as an array of pointers, one per parameter, each
// pointing at that parameter's value in host memory (4 bytes for int,
// unsigned and float, 8 for a device pointer). Args keeps the values in a
// fixed array, one 8-byte slot each, and the pointer table beside it.
//
// Allocate an Args once (new(cu.Args)) and reuse it: Reset, add the
// arguments in the kernel's parameter order, Launch. Launch hands its
// address to C, so it lives on the heap, which Go never moves; a fresh Args
// per launch would be an allocation per launch. The packers chain:
//
//	args.Reset().Ptr(out).Ptr(in).I32(n).F32(eps)
//
// Packing more than 32 arguments does not panic: the extra ones are counted
// and Launch returns an error. An Args is not safe for concurrent use.
type Args struct {
	vals    [maxArgs]uint64
	ptrs    [maxArgs]unsafe.Pointer
	kinds   [maxArgs]byte // 'p', 'i', 'u' or 'f' per argument, for checks
	n       int           // arguments stored
	dropped int           // arguments past capacity, reported by Launch
}

// Reset empties a, forgetting any overflow, and returns it for chaining.
func (a *Args) Reset() *Args {
	a.n, a.dropped = 0, 0
	return a
}

// slot returns the next value slot, zeroed, or nil (recording the overflow)
// when a is full.
func (a *Args) slot() unsafe.Pointer {
	if a.n == maxArgs {
		a.dropped++
		return nil
	}
	p := &a.vals[a.n]
	*p = 0
	a.n++
	return unsafe.Pointer(p)
}

// Ptr adds a device pointer argument (8 bytes).
func (a *Args) Ptr(p DevicePtr) *Args {
	if s := a.slot(); s != nil {
		a.kinds[a.n-1] = 'p'
		*(*DevicePtr)(s) = p
	}
	return a
}

// I32 adds a C int argument (4 bytes).
func (a *Args) I32(v int32) *Args {
	if s := a.slot(); s != nil {
		a.kinds[a.n-1] = 'i'
		*(*int32)(s) = v
	}
	return a
}

// U32 adds a C unsigned int argument (4 bytes).
func (a *Args) U32(v uint32) *Args {
	if s := a.slot(); s != nil {
		a.kinds[a.n-1] = 'u'
		*(*uint32)(s) = v
	}
	return a
}

// F32 adds a C float argument (4 bytes).
func (a *Args) F32(v float32) *Args {
	if s := a.slot(); s != nil {
		a.kinds[a.n-1] = 'f'
		*(*float32)(s) = v
	}
	return a
}

// Overflow says whether more arguments were packed than a holds (Launch
// reports it; a caller that keeps the arguments for later checks it).
func (a *Args) Overflow() bool { return a.dropped > 0 }

// AppendTo appends a's values (as Value gives them) and kinds (as Kind)
// to vals and kinds: a launch kept for later, in one copy each.
func (a *Args) AppendTo(vals []uint64, kinds []byte) ([]uint64, []byte) {
	return append(vals, a.vals[:a.n]...), append(kinds, a.kinds[:a.n]...)
}

// Equal says whether a holds exactly the values and kinds given (as
// AppendTo wrote them).
func (a *Args) Equal(vals []uint64, kinds []byte) bool {
	return a.n == len(vals) && slices.Equal(a.vals[:a.n], vals) && string(a.kinds[:a.n]) == string(kinds)
}

// Len returns how many arguments a holds (at most its capacity of 32; an
// overflow is reported by Launch).
func (a *Args) Len() int { return a.n }

// fill points each entry of the pointer table at its value slot. Launch
// calls it just before passing the table, so the table is right even if the
// Args value was copied since packing.
func (a *Args) fill() {
	for i := range a.n {
		a.ptrs[i] = unsafe.Pointer(&a.vals[i])
	}
}

// Kind says how argument i was packed: 'p' (Ptr), 'i' (I32), 'u' (U32) or
// 'f' (F32), or 0 past the end. Tests compare it with a kernel's
// parameter list in its PTX.
func (a *Args) Kind(i int) byte {
	if i < 0 || i >= a.n {
		return 0
	}
	return a.kinds[i]
}

// Value is argument i's bits (a pointer, or a 4-byte value zero-extended).
func (a *Args) Value(i int) uint64 {
	if i < 0 || i >= a.n {
		return 0
	}
	return a.vals[i]
}
