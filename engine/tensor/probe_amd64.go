package tensor

//go:noescape
func triadAVX2(a, b, c *float32, s float32, n int)

//go:noescape
func sumAVX2(a *float32, n int) float32

// triad sets a[i] = b[i] + s·c[i]. len(a) must be a multiple of 32 and a
// 32-byte aligned (the non-temporal stores require it).
func triad(a, b, c []float32, s float32) {
	if !hasAVX2 || len(a) == 0 {
		triadGo(a, b, c, s)
		return
	}
	triadAVX2(&a[0], &b[0], &c[0], s, len(a))
}

// sum returns Σa[i]; len(a) must be a multiple of 64.
func sum(a []float32) float32 {
	if !hasAVX2 || len(a) == 0 {
		return sumGo(a)
	}
	return sumAVX2(&a[0], len(a))
}
