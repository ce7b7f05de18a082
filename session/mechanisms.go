package session

import (
	"errors"
	"strconv"
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
		onOffKnob("gauge", "GRC: fold the norms' |γ| into Q/K/V and gate/up first",
			func(s *Settings) *bool { return &s.Gauge }),
		{
			Name: "sink_channels", Values: "0…rank-1", Build: true,
			Help:  "GRC: input channels Q/K/V and gate/up keep exact",
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
	}
}
