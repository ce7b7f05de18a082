package session

import (
	"github.com/isagi-lab/isagi/engine/model"
)

// The engine's mixture-of-experts calls the expert part makes, in one
// place.

// moeShape is the model's MoE layers (block indices, ascending), the
// experts of each and how many a token uses; no layers for a dense model.
func moeShape(m *model.Model) (layers []int, experts, used int) {
	return nil, 0, 0 // TODO(merge): model.IsMoE, MoELayer, Config.Experts
}

// addRouteHook registers the routing record on st.
func addRouteHook(st *model.State, r *routeLog) (remove func(), err error) {
	return func() {}, nil // TODO(merge): st.AddHook(r)
}

// setExpertOff switches expert e of MoE layer l off (or on) in st.
func setExpertOff(st *model.State, l, e int, off bool) error {
	return nil // TODO(merge): st.SetExpertOff
}

// stateOff is what st has switched off.
func stateOff(st *model.State) []ExpertRef {
	return nil // TODO(merge): st.ExpertsOff
}
