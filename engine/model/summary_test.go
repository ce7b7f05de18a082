package model

import "testing"

func TestExpertsSummary(t *testing.T) {
	for _, c := range []struct {
		c    Config
		want string
	}{
		{Config{Layers: 4}, ""},
		{Config{Layers: 48, Experts: 128, ExpertsUsed: 8, ExpertFFN: 768}, "128 (8 per token, 768 wide)"},
		{Config{Layers: 4, Experts: 4, ExpertsUsed: 2, ExpertFFN: 32, LeadingDense: 1}, "4 (2 per token, 32 wide; block 0 dense)"},
		{Config{Layers: 61, Experts: 256, ExpertsUsed: 8, ExpertFFN: 2048, LeadingDense: 3}, "256 (8 per token, 2048 wide; blocks 0–2 dense)"},
	} {
		if got := c.c.ExpertsSummary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
}
