package model

import "fmt"

// ExpertsSummary describes the model's mixture of experts for reports:
// "128 (8 per token, 768 wide)", with its leading dense blocks when it has
// any ("…; blocks 0–2 dense"); "" for a dense model.
func (c *Config) ExpertsSummary() string {
	if !c.IsMoE() {
		return ""
	}
	s := fmt.Sprintf("%d (%d per token, %d wide", c.Experts, c.ExpertsUsed, c.ExpertFFN)
	switch {
	case c.LeadingDense == 1:
		s += "; block 0 dense"
	case c.LeadingDense > 1:
		s += fmt.Sprintf("; blocks 0–%d dense", c.LeadingDense-1)
	}
	return s + ")"
}
