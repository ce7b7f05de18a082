package cuda

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
)

// affineHook is a Snipe projector (Alpha 0, layers ≥ from) or a Safe OGD
// step (Alpha > 0, layer from only) as engine/model.AffineHook, with the
// host form in AfterBlock: what geometry's hooks are, without the profile.
type affineHook struct {
	from, layers int
	step         bool
	a            model.Affine
}

// newAffineHook draws k orthonormal rows of width d, μ and a unit v.
func newAffineHook(d, k, from, layers int, alpha float32) *affineHook {
	r := rand.New(rand.NewPCG(uint64(k), 7))
	q := make([]float64, 0, k*d)
	for j := range k {
		v := make([]float64, d)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		for range 2 {
			for l := range j {
				var t float64
				for i := range v {
					t += q[l*d+i] * v[i]
				}
				for i := range v {
					v[i] -= t * q[l*d+i]
				}
			}
		}
		var n float64
		for _, x := range v {
			n += x * x
		}
		for i := range v {
			v[i] /= math.Sqrt(n)
		}
		q = append(q, v...)
	}
	h := &affineHook{from: from, layers: layers, step: alpha != 0}
	h.a.K, h.a.Alpha = k, alpha
	for _, x := range q {
		h.a.Q = append(h.a.Q, float32(x))
	}
	for range d {
		h.a.Mu = append(h.a.Mu, float32(r.NormFloat64()*0.05))
	}
	if alpha != 0 {
		h.a.Dir = make([]float32, d)
		h.a.Dir[r.IntN(d)] = 1
	}
	return h
}

func (h *affineHook) at(l int) bool {
	if h.step {
		return l == h.from
	}
	return l >= h.from
}

func (h *affineHook) HookLayers() []int {
	var ls []int
	for l := range h.layers {
		if h.at(l) {
			ls = append(ls, l)
		}
	}
	return ls
}

func (h *affineHook) AffineAt(l int) (*model.Affine, bool) {
	if !h.at(l) {
		return nil, false
	}
	return &h.a, false
}

func (h *affineHook) ReadBlock(int, int, []float32) {}

// AfterBlock is the host form, in float64.
func (h *affineHook) AfterBlock(l, _ int, x []float32) {
	if !h.at(l) {
		return
	}
	d := len(x)
	w := make([]float64, d)
	var r2 float64
	for i, v := range x {
		t := float64(v) - float64(h.a.Mu[i])
		r2 += t * t
	}
	s := float64(h.a.Alpha) * math.Sqrt(r2)
	for i, v := range x {
		w[i] = float64(v) - float64(h.a.Mu[i])
		if h.step {
			w[i] += s * float64(h.a.Dir[i])
		}
	}
	for j := range h.a.K {
		var c float64
		for i := range d {
			c += float64(h.a.Q[j*d+i]) * w[i]
		}
		for i := range d {
			w[i] -= c * float64(h.a.Q[j*d+i])
		}
	}
	for i := range x {
		x[i] = float32(float64(h.a.Mu[i]) + w[i])
	}
}

// hostHook hides AffineHook: the forward pass copies the rows.
type hostHook struct {
	model.BlockHook
	model.LayerHook
}

// TestAffineOnRecorder: a decode step with a Snipe-like projector or a
// Safe OGD step launches affine_rows and copies no more than a step
// without a hook (the residual rows stay on the device); the same hook on
// the host copies the rows there and back at each layer it writes. No
// allocation per step.
func TestAffineOnRecorder(t *testing.T) {
	m, err := model.Open(fixture(t, "kjv", "kjv-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	L := m.Config.Layers
	snipe := newAffineHook(m.Config.Dim, 12, L/2, L, 0)
	step := newAffineHook(m.Config.Dim, 6, L/2, L, 0.2)
	for _, tc := range []struct {
		name    string
		hook    any
		extra   int // copies beyond an unhooked step's
		affines int
	}{
		{"none", nil, 0, 0},
		{"snipe", snipe, 0, L - L/2},
		{"ogd", step, 0, 1},
		{"snipe on the host", &hostHook{snipe, snipe}, 2 * (L - L/2), 0},
		{"ogd on the host", &hostHook{step, step}, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, f := newFakeDevice(t)
			if _, host := tc.hook.(*hostHook); host {
				// A hook that copies rows to the host ends the step's
				// graph (graph.go), and a plain step copies its inputs
				// otherwise than a graph step: count both sides of the
				// comparison on plain launches.
				g.graphs = false
			}
			b, err := g.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			defer b.Close()
			st, err := m.NewStateOn(64, b)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			logits := make([]float32, m.Config.Vocab)
			if err := st.Forward([]int32{1, 5, 9}, logits); err != nil {
				t.Fatal(err)
			}
			base := f.copies
			if err := st.Forward([]int32{7}, logits); err != nil {
				t.Fatal(err)
			}
			plain := f.copies - base // an unhooked step's: the token, the logits
			if tc.hook != nil {
				if _, err := st.AddHook(tc.hook); err != nil {
					t.Fatal(err)
				}
			}
			// The first hooked step binds the map (its uploads); the
			// next is what every step costs.
			if err := st.Forward([]int32{8}, logits); err != nil {
				t.Fatal(err)
			}
			f.record = true
			f.launches = f.launches[:0]
			base = f.copies
			if err := st.Forward([]int32{9}, logits); err != nil {
				t.Fatal(err)
			}
			if got := f.copies - base - plain; got != tc.extra {
				t.Errorf("a decode step made %d copies beyond an unhooked step's %d, want %d", got, plain, tc.extra)
			}
			n := 0
			for _, l := range f.launches {
				if l.name == "affine_rows" {
					n++
				}
			}
			if n != tc.affines {
				t.Errorf("a decode step launched affine_rows %d times, want %d", n, tc.affines)
			}
			tok := []int32{3}
			if a := testing.AllocsPerRun(10, func() {
				st.Truncate(st.Pos() - 1)
				if err := st.Forward(tok, logits); err != nil {
					t.Fatal(err)
				}
			}); a != 0 && tc.extra == 0 {
				t.Errorf("a decode step allocates %v times", a)
			}
			for _, e := range f.errs {
				t.Error(e)
			}
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestGPUAffineForward: the device form of a Snipe-like projector and of a
// Safe OGD step gives the CPU backend's logits (prompt and decode steps),
// as the plain forward pass does.
func TestGPUAffineForward(t *testing.T) {
	g := gpuDevice(t)
	m, err := model.Open(fixture(t, "archs", "qwen2-f16.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	L := m.Config.Layers
	for _, tc := range []struct {
		name string
		hook *affineHook
	}{
		{"snipe", newAffineHook(m.Config.Dim, 12, L/2, L, 0)},
		{"ogd", newAffineHook(m.Config.Dim, 6, L/2, L, 0.2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(b backend.Backend) [][]float32 {
				st, err := m.NewStateOn(64, b)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				if _, err := st.AddHook(tc.hook); err != nil {
					t.Fatal(err)
				}
				logits := make([]float32, m.Config.Vocab)
				var out [][]float32
				for _, toks := range [][]int32{{1, 5, 9, 13, 17}, {21}, {25}, {29}} {
					if err := st.Forward(toks, logits); err != nil {
						t.Fatal(err)
					}
					out = append(out, slices.Clone(logits))
				}
				return out
			}
			b, err := g.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			got, want := run(b), run(cpu.New(nil))
			var worst, big float64
			for i := range want {
				for j := range want[i] {
					worst = max(worst, math.Abs(float64(got[i][j]-want[i][j])))
					big = max(big, math.Abs(float64(want[i][j])))
				}
			}
			record(t, "affine.jsonl", map[string]any{"hook": tc.name, "max_logit_diff": worst, "largest_logit": big})
			if worst > 2e-2*(big+1) {
				t.Errorf("the device form's logits differ from the CPU's by %g (largest %g)", worst, big)
			}
		})
	}
}
