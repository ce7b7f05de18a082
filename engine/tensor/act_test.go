package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestQuantizeActPathsIdentical: the assembly quantiser must give the same
// bytes as the portable one, or results would depend on the CPU.
func TestQuantizeActPathsIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{32, 64, 4096} {
		for trial := range 20 {
			x := randomVec(rng, n)
			switch trial {
			case 1:
				clear(x[:32]) // an all-zero block
			case 2:
				x[5] = 1e30 // an outlier dominating its block
			case 3:
				for i := range x {
					x[i] = float32(i%64) - 31.5 // exact .5 ties after scaling
				}
			case 4:
				// Blocks far below any activation, where 127/amax would
				// overflow, and one just above that edge.
				for i := range 32 {
					x[i] = float32(i-16) * 1e-39
				}
				if n > 32 {
					for i := 32; i < 64; i++ {
						x[i] = float32(i-48) * 0x1p-120
					}
				}
			}
			var ga, aa actBuf
			ga.ensure(1, n)
			aa.ensure(1, n)
			g, a := ga.row(0, n), aa.row(0, n)
			quantizeActGo(g, x)
			if !quantizeActArch(a, x) {
				if hasAVX2 {
					t.Fatalf("n=%d trial %d: assembly refused finite input", n, trial)
				}
				t.Skip("no AVX2 on this CPU: only the portable quantiser exists")
			}
			for i := range g.qs {
				if g.qs[i] != a.qs[i] {
					t.Fatalf("n=%d trial %d: code %d: go %d, asm %d", n, trial, i, g.qs[i], a.qs[i])
				}
			}
			for b := range g.d {
				if g.d[b] != a.d[b] || g.s[b] != a.s[b] || g.m8[b] != a.m8[b] {
					t.Fatalf("n=%d trial %d: block %d: go d=%g s=%g m8=%d, asm d=%g s=%g m8=%d", n, trial, b, g.d[b], g.s[b], g.m8[b], a.d[b], a.s[b], a.m8[b])
				}
			}
		}
	}
}

func TestQuantizeActNonFinite(t *testing.T) {
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		x := make([]float32, 64)
		for i := range x {
			x[i] = float32(i) / 10
		}
		x[40] = bad
		var buf actBuf
		buf.ensure(1, 64)
		a := buf.row(0, 64)
		quantizeAct(a, x)
		if a.d[0] != float32(63*0+31)/10/127 && math.IsNaN(float64(a.d[0])) {
			t.Errorf("%v in block 1 spoiled block 0: d=%g", bad, a.d[0])
		}
		if !math.IsNaN(float64(a.d[1])) || !math.IsNaN(float64(a.s[1])) {
			t.Errorf("%v: block scale %g, sum %g, want NaN", bad, a.d[1], a.s[1])
		}
	}
}

// TestQuantizeActTinyBlock: a block whose magnitudes are all below 2⁻¹²⁰
// (where 127/amax overflows) quantises to zeros with a zero scale on every
// path, instead of codes of −128 whatever the signs.
func TestQuantizeActTinyBlock(t *testing.T) {
	x := make([]float32, 32)
	for i := range x {
		x[i] = float32(i-16) * 1e-38
	}
	var buf actBuf
	buf.ensure(1, 32)
	a := buf.row(0, 32)
	quantizeAct(a, x)
	for i, q := range a.qs {
		if q != 0 {
			t.Fatalf("code %d = %d, want 0", i, q)
		}
	}
	if a.d[0] != 0 || a.s[0] != 0 {
		t.Errorf("scale %g, sum %g, want 0", a.d[0], a.s[0])
	}
}
