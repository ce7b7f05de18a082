package gtc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// ErrEmpty is returned by a lookup in a store with no record.
var ErrEmpty = errors.New("gtc: the store is empty")

// Store holds records of a state (a point of the lookup space) and the
// trajectory that followed it, each a flat float64 vector of a fixed
// length. Records are kept row-major in two slabs so that a lookup is one
// pass over contiguous memory.
type Store struct {
	stateDim, trajDim int
	states, trajs     []float64
}

// NewStore makes an empty store of states of stateDim numbers and
// trajectories of trajDim numbers.
func NewStore(stateDim, trajDim int) (*Store, error) {
	if stateDim < 1 || trajDim < 1 {
		return nil, fmt.Errorf("gtc: store of %d-number states and %d-number trajectories: want 1 or more of each", stateDim, trajDim)
	}
	return &Store{stateDim: stateDim, trajDim: trajDim}, nil
}

// StateDim is the length of a state.
func (s *Store) StateDim() int { return s.stateDim }

// TrajDim is the length of a trajectory.
func (s *Store) TrajDim() int { return s.trajDim }

// Len is the number of records.
func (s *Store) Len() int { return len(s.states) / s.stateDim }

// Add copies a record into the store. A state or trajectory of the wrong
// length, or holding a NaN or an infinity, is refused: one such record
// would poison every distance and every fit.
func (s *Store) Add(state, traj []float64) error {
	if len(state) != s.stateDim || len(traj) != s.trajDim {
		return fmt.Errorf("gtc: record of %d and %d numbers, store wants %d and %d", len(state), len(traj), s.stateDim, s.trajDim)
	}
	if !finite(state) || !finite(traj) {
		return fmt.Errorf("gtc: record %d holds a NaN or an infinity", s.Len())
	}
	s.states = append(s.states, state...)
	s.trajs = append(s.trajs, traj...)
	return nil
}

// State is record i's state (a view: do not modify it).
func (s *Store) State(i int) []float64 { return s.states[i*s.stateDim : (i+1)*s.stateDim] }

// Traj is record i's trajectory (a view: do not modify it).
func (s *Store) Traj(i int) []float64 { return s.trajs[i*s.trajDim : (i+1)*s.trajDim] }

// Subset is a new store of the records idx, in that order.
func (s *Store) Subset(idx []int) (*Store, error) {
	out := &Store{stateDim: s.stateDim, trajDim: s.trajDim}
	for _, i := range idx {
		if i < 0 || i >= s.Len() {
			return nil, fmt.Errorf("gtc: subset names record %d of %d", i, s.Len())
		}
		out.states = append(out.states, s.State(i)...)
		out.trajs = append(out.trajs, s.Traj(i)...)
	}
	return out, nil
}

// Nearest is the record whose state is nearest q in L2 and its distance.
// Exact search: at the sizes a cache of hidden states reaches in these
// measurements (thousands) a scan is milliseconds.
func (s *Store) Nearest(q []float64) (int, float64, error) {
	if len(q) != s.stateDim {
		return -1, 0, fmt.Errorf("gtc: query of %d numbers, states have %d", len(q), s.stateDim)
	}
	if !finite(q) {
		return -1, 0, fmt.Errorf("gtc: the query holds a NaN or an infinity")
	}
	if s.Len() == 0 {
		return -1, 0, ErrEmpty
	}
	best, bd := -1, math.Inf(1)
	for i := range s.Len() {
		if d := sqDist(q, s.State(i)); d < bd {
			best, bd = i, d
		}
	}
	return best, math.Sqrt(bd), nil
}

// kNearest is the k records nearest record i's state, i itself left out,
// nearest first.
func (s *Store) kNearest(i, k int) []int {
	type nd struct {
		j int
		d float64
	}
	var all []nd
	q := s.State(i)
	for j := range s.Len() {
		if j != i {
			all = append(all, nd{j, sqDist(q, s.State(j))})
		}
	}
	slices.SortFunc(all, func(a, b nd) int {
		if a.d != b.d {
			if a.d < b.d {
				return -1
			}
			return 1
		}
		return a.j - b.j
	})
	out := make([]int, 0, min(k, len(all)))
	for _, a := range all[:min(k, len(all))] {
		out = append(out, a.j)
	}
	return out
}

// NeighbourDistances is, for every record, the L2 distance from its state
// to the nearest other record's state (nil below two records).
func (s *Store) NeighbourDistances() []float64 {
	n := s.Len()
	if n < 2 {
		return nil
	}
	out := make([]float64, n)
	for i := range n {
		bd := math.Inf(1)
		for j := range n {
			if j != i {
				bd = min(bd, sqDist(s.State(i), s.State(j)))
			}
		}
		out[i] = math.Sqrt(bd)
	}
	return out
}

// FarthestPoints picks n records by greedy farthest-point sampling: first
// the record farthest from the states' mean, then each time the record
// farthest from all those picked. It covers the cloud as evenly as a
// greedy choice can (2-approximation of the best covering radius), which is
// what a cache that must answer queries near any stored point wants.
// Deterministic; n ≥ Len() returns every record.
func (s *Store) FarthestPoints(n int) []int {
	N := s.Len()
	if n >= N {
		out := make([]int, N)
		for i := range out {
			out[i] = i
		}
		return out
	}
	if n <= 0 {
		return nil
	}
	mean := make([]float64, s.stateDim)
	for i := range N {
		for c, v := range s.State(i) {
			mean[c] += v / float64(N)
		}
	}
	first, fd := 0, -1.0
	for i := range N {
		if d := sqDist(mean, s.State(i)); d > fd {
			first, fd = i, d
		}
	}
	picked := []int{first}
	gap := make([]float64, N) // squared distance to the nearest picked record
	for i := range N {
		gap[i] = sqDist(s.State(i), s.State(first))
	}
	for len(picked) < n {
		next, nd := -1, -1.0
		for i, g := range gap {
			if g > nd {
				next, nd = i, g
			}
		}
		picked = append(picked, next)
		for i := range N {
			gap[i] = min(gap[i], sqDist(s.State(i), s.State(next)))
		}
	}
	return picked
}

// RandomPoints picks n of total indices uniformly without replacement,
// from seed (sorted).
func RandomPoints(total, n int, seed uint64) []int {
	if n <= 0 || total <= 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	perm := r.Perm(total)[:min(n, total)]
	slices.Sort(perm)
	return perm
}

// Median is the median of v (the mean of the middle two for an even
// count; NaN when v is empty).
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// RelErr is ‖pred − truth‖ / ‖truth‖ (the plain norm of the difference
// when truth is zero; NaN when the lengths differ).
func RelErr(pred, truth []float64) float64 {
	if len(pred) != len(truth) {
		return math.NaN()
	}
	var num, den float64
	for i, t := range truth {
		d := pred[i] - t
		num += d * d
		den += t * t
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

func sqDist(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return s
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
