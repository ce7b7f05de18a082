package session

import (
	"github.com/isagi-lab/isagi/engine/model"
)

// The engine's mixture-of-experts calls the expert part makes, in one
// place.

// moeShape is the model's MoE layers (block indices, ascending), the
// experts of each and how many a token uses; no layers for a dense model.
func moeShape(m *model.Model) (layers []int, experts, used int) {
	if m == nil || !m.IsMoE() {
		return nil, 0, 0
	}
	for l := range m.Layers {
		if m.MoELayer(l) {
			layers = append(layers, l)
		}
	}
	return layers, m.Experts, m.ExpertsUsed
}

// addRouteHook registers the routing record on st.
func addRouteHook(st *model.State, r *routeLog) (remove func(), err error) {
	return st.AddHook(r)
}

// setExpertOff switches expert e of MoE layer l off (or on) in st.
func setExpertOff(st *model.State, l, e int, off bool) error {
	return st.SetExpertOff(l, e, off)
}

// stateOff is what st has switched off.
func stateOff(st *model.State) []ExpertRef {
	var out []ExpertRef
	for _, r := range st.ExpertsOff() {
		out = append(out, ExpertRef{Layer: r.Layer, Expert: r.Expert})
	}
	return out
}

// The routing record is a route hook that hears of rewinds.
var (
	_ model.RouteHook  = (*routeLog)(nil)
	_ model.RewindHook = (*routeLog)(nil)
)
