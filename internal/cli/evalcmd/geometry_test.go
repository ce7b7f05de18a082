package evalcmd

import (
	"regexp"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/teh"
)

// TestPrintTEH: eval teh prints the TPR at 1 % FPR beside every AUROC,
// marks the figures over fewer than 100 benign prompts (where 1 % allows
// no false positive) and says what the mark means only when one is shown.
func TestPrintTEH(t *testing.T) {
	point := func(harm, benign []float64) *teh.FPRPoint {
		p, err := teh.TPRAtFPR(harm, benign, evaluate.LowFPR)
		if err != nil {
			t.Fatal(err)
		}
		return &p
	}
	scores := func(n int, base float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = base + float64(i)
		}
		return out
	}
	auroc := 0.9
	// 352 benign scores 0…351 allow 3 false positives: the cutoff is 348,
	// so of harm 340…379 the 31 above it are detected.
	overall := evaluate.TEHResult{Name: "overall", AUROC: &auroc, TPRAtLowFPR: point(scores(40, 340), scores(352, 0))}
	// 72 benign scores 0…71 allow none: the cutoff is 71, so of harm
	// 60…99 the 28 above it are detected.
	cat := evaluate.TEHResult{Name: "privacy", AUROC: &auroc, TPRAtLowFPR: point(scores(40, 60), scores(72, 0))}
	none := evaluate.TEHResult{Name: "empty"}
	dashes := regexp.MustCompile(`—\s+—$`) // AUROC and TPR@1%FPR
	render := func(r *evaluate.TEHReport) string {
		var b strings.Builder
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		printTEH(&b, tw, r, 16)
		return b.String()
	}
	out := render(&evaluate.TEHReport{Overall: overall, Categories: []evaluate.TEHResult{cat, none}, Prompts: 1,
		Positions: []evaluate.TEHPosition{{Name: evaluate.PosLastPrompt, Overall: overall, ProbeAUROC: &auroc, ProbeTPRAtLowFPR: cat.TPRAtLowFPR}}})
	for _, want := range []string{"AUROC  TPR@1%FPR", "31/40 (78%)", "28/40 (70%) †", "TPR@1%FPR: the share", "†: fewer than 100 benign prompts", "probe TPR@1%FPR"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "overall") && strings.Contains(line, "†"):
			t.Errorf("352 benign prompts marked as allowing none: %q", line)
		case strings.HasPrefix(line, "empty") && !dashes.MatchString(line):
			t.Errorf("a gauge without coordinates: %q", line)
		}
	}
	out = render(&evaluate.TEHReport{Overall: overall, Prompts: 1})
	if strings.Contains(out, "†") || !strings.Contains(out, "⌊0.01·N⌋ of N") {
		t.Errorf("without a small side:\n%s", out)
	}
}
