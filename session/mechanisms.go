package session

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/isagi-lab/isagi/engine/backend"
)

// mechanismKnobs are Compression II's settings (docs/grc.md): each builds
// another compression (its own cache entry), so they are Build knobs; none
// is on by default, as none helped at the scales measured.
func mechanismKnobs() []Knob {
	onOffKnob := func(name, help string, field func(*Settings) *bool) Knob {
		return Knob{
			Name: name, Values: "on|off", Help: help, Build: true,
			Value: func(s Settings, _ Info) string { return onOff(*field(&s)) },
			set: func(_ *Session, n *Settings, value string) error {
				on, err := parseOnOff(value)
				if err == nil {
					*field(n) = on
				}
				return err
			},
		}
	}
	return []Knob{
		onOffKnob("gauge", "GRC: fold the norms' |γ| into the reads",
			func(s *Settings) *bool { return &s.Gauge }),
		{
			Name: "sink_channels", Values: "0…rank-1", Build: true,
			Help:  "GRC: input channels kept exact",
			Value: func(s Settings, _ Info) string { return strconv.Itoa(s.SinkChannels) },
			set: func(_ *Session, n *Settings, value string) (err error) {
				if n.SinkChannels, err = strconv.Atoi(value); err == nil && n.SinkChannels < 0 {
					err = errors.New("want 0 or more")
				}
				return err
			},
		},
		onOffKnob("sink_bypass", "GRC: outlier positions (‖h‖ > μ+3σ) run dense",
			func(s *Settings) *bool { return &s.SinkBypass }),
		{
			Name: "kv_proj", Values: "on|off", Help: "KV cache in the rank's share of a head",
			Value: func(s Settings, _ Info) string { return onOff(s.KVProj) },
			set: func(s *Session, n *Settings, value string) error {
				on, err := parseOnOff(value)
				if err != nil {
					return err
				}
				if on {
					if _, ok := s.b.(backend.HeadProjector); !ok {
						return fmt.Errorf("%s cannot project its KV cache", s.b.Name())
					}
				}
				n.KVProj = on
				return nil
			},
		},
	}
}

// ErrKVProjNeedsRank is kv_proj on without a compression: the rank is
// what sizes the projection.
var ErrKVProjNeedsRank = errors.New("kv_proj needs a rank (/set rank K)")
