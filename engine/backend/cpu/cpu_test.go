package cpu

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// encode stores v in type typ (F32 or F16) as a rows × cols matrix, and
// returns the values the matrix holds (v rounded to typ).
func encode(t *testing.T, typ tensor.Type, rows, cols int, v []float32) (*tensor.Matrix, []float32) {
	t.Helper()
	held := make([]float32, len(v))
	var b []byte
	switch typ {
	case tensor.F32:
		b = make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
			held[i] = x
		}
	case tensor.F16:
		b = make([]byte, 2*len(v))
		for i, x := range v {
			h := tensor.F32ToF16(x)
			binary.LittleEndian.PutUint16(b[2*i:], h)
			held[i] = tensor.F16ToF32(h)
		}
	default:
		t.Fatalf("no encoder for %s", typ)
	}
	m, err := tensor.NewMatrix(typ, rows, cols, b)
	if err != nil {
		t.Fatal(err)
	}
	return m, held
}

// project is the plain formula in float64: x + alpha·Bᵀ(B·x).
func project(x, basis []float32, k int, alpha float32) []float64 {
	d := len(x)
	c := make([]float64, k)
	for j := range k {
		for i := range d {
			c[j] += float64(basis[j*d+i]) * float64(x[i])
		}
	}
	out := make([]float64, d)
	for i := range d {
		out[i] = float64(x[i])
		for j := range k {
			out[i] += float64(alpha) * c[j] * float64(basis[j*d+i])
		}
	}
	return out
}

// TestProject: Project equals x + α·Bᵀ(B·x) on the rows asked and leaves
// the others alone, for an F32 basis (read in place) and an F16 one
// (dequantised), and allocates nothing once its scratch has grown.
func TestProject(t *testing.T) {
	const k, d, rows = 3, 37, 5
	rng := rand.New(rand.NewPCG(3, 4))
	v := make([]float32, k*d)
	for i := range v {
		v[i] = float32(rng.NormFloat64()) / 4
	}
	for _, typ := range []tensor.Type{tensor.F32, tensor.F16} {
		b := New(tensor.NewKernels(tensor.NewPool(1)))
		w, held := encode(t, typ, k, d, v)
		basis, err := b.Matrix(w)
		if err != nil {
			t.Fatal(err)
		}
		buf, err := b.Alloc(rows, d)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float32, rows*d)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		b.Write(buf, 0, x)
		const alpha = -0.7
		b.Project(buf, 1, 3, basis, alpha)
		got := b.Host(buf, 0, rows)
		for r := range rows {
			want := make([]float64, d)
			if r >= 1 && r < 4 {
				want = project(x[r*d:(r+1)*d], held, k, alpha)
			} else {
				for i := range d {
					want[i] = float64(x[r*d+i])
				}
			}
			for i := range d {
				if e := math.Abs(float64(got[r*d+i]) - want[i]); e > 1e-5 {
					t.Fatalf("%s basis, row %d [%d]: %g, want %g", typ, r, i, got[r*d+i], want[i])
				}
			}
		}
		if n := testing.AllocsPerRun(20, func() { b.Project(buf, 0, rows, basis, alpha) }); n != 0 {
			t.Fatalf("%s basis: %v allocations per Project", typ, n)
		}
	}
}

// TestProjectRemovesSpan: with orthonormal rows and α = −1 — Snipe's
// removal, h ← h − BᵀB·h — what is left has no component in the span.
func TestProjectRemovesSpan(t *testing.T) {
	const d = 16
	// Two orthonormal rows: e₀ and (e₁ + e₂)/√2.
	v := make([]float32, 2*d)
	v[0] = 1
	v[d+1], v[d+2] = float32(1/math.Sqrt2), float32(1/math.Sqrt2)
	b := New(tensor.NewKernels(tensor.NewPool(1)))
	w, _ := encode(t, tensor.F32, 2, d, v)
	basis, err := b.Matrix(w)
	if err != nil {
		t.Fatal(err)
	}
	buf, err := b.Alloc(1, d)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, d)
	for i := range x {
		x[i] = float32(i + 1)
	}
	b.Write(buf, 0, x)
	b.Project(buf, 0, 1, basis, -1)
	got := b.Host(buf, 0, 1)
	if got[0] != 0 || math.Abs(float64(got[1]+got[2])) > 1e-6 || math.Abs(float64(got[1]-got[2]-(x[1]-x[2]))) > 1e-6 {
		t.Fatalf("the span is still there: %v", got[:3])
	}
	for i := 3; i < d; i++ {
		if got[i] != x[i] {
			t.Fatalf("coordinate %d outside the span moved: %g → %g", i, x[i], got[i])
		}
	}
}

// TestShare: a shared backend runs on other kernels over the same pool
// (kernels are one goroutine's), in the same weight domain, and takes the
// same weights.
func TestShare(t *testing.T) {
	b := New(tensor.NewKernels(tensor.NewPool(2)))
	sb, err := b.Share()
	if err != nil {
		t.Fatal(err)
	}
	s := sb.(*Backend)
	if s.k == b.k || s.k.Pool() != b.k.Pool() {
		t.Fatal("a shared backend must have its own kernels on the same pool")
	}
	if s.Domain() != b.Domain() || New(nil).Domain() != b.Domain() {
		t.Fatal("CPU backends must share one weight domain")
	}
	if b.BatchSize() != 256 {
		t.Fatalf("batch size %d, want the model's 256", b.BatchSize())
	}
	var _ backend.Backend = sb
}

// TestPacked: a Q4_0 or Q8_0 weight bound here runs on its packed copy
// where the CPU has packed kernels for its type, a batch's rows equal one
// row's products bit for bit, and embedding lookups still read the GGUF
// bytes.
func TestPacked(t *testing.T) {
	for _, typ := range []tensor.Type{tensor.Q4_0, tensor.Q8_0} {
		t.Run(typ.String(), func(t *testing.T) { testPacked(t, typ) })
	}
}

func testPacked(t *testing.T, typ tensor.Type) {
	const rows, cols = 72, 256 // four groups of sixteen and an unpacked tail of eight
	rng := rand.New(rand.NewPCG(9, 10))
	v := make([]float32, rows*cols)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	rb, _ := typ.RowBytes(cols)
	data := make([]byte, rows*int(rb))
	if err := tensor.Quantize(typ, data, v); err != nil {
		t.Fatal(err)
	}
	m, err := tensor.NewMatrix(typ, rows, cols, data)
	if err != nil {
		t.Fatal(err)
	}
	b := New(tensor.NewKernels(tensor.NewPool(2)))
	defer b.k.Close()
	bm, err := b.Matrix(m)
	if err != nil {
		t.Fatal(err)
	}
	// 64 rows where the CPU has packed kernels, none elsewhere.
	if got, want := hm(bm).m.Packed(), b.k.Pack(m).Packed(); got != want || want != 0 && want != 64 {
		t.Fatalf("bound matrix has %d packed rows, Pack gives %d", got, want)
	}
	t.Logf("%d of %d rows packed", hm(bm).m.Packed(), rows)

	const n = 5
	x, _ := b.Alloc(n, cols)
	for i := range hb(x).data {
		hb(x).data[i] = float32(rng.NormFloat64())
	}
	batch, _ := b.Alloc(n, rows)
	one, _ := b.Alloc(1, rows)
	xi, _ := b.Alloc(1, cols)
	b.Linear(batch, bm, x, n)
	for i := range n {
		copy(hb(xi).data, hb(x).data[i*cols:(i+1)*cols])
		b.Linear(one, bm, xi, 1)
		for r := range rows {
			if g, w := hb(batch).data[i*rows+r], hb(one).data[r]; g != w {
				t.Fatalf("token %d row %d: batch %g, alone %g", i, r, g, w)
			}
		}
	}

	emb, _ := b.Alloc(1, cols)
	if err := b.Embed(emb, bm, []int32{70}); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, cols)
	if err := tensor.Dequantize(typ, want, m.Row(70)); err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if hb(emb).data[i] != w {
			t.Fatalf("embedding element %d: %g, want %g", i, hb(emb).data[i], w)
		}
	}
}
