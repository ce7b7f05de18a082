//go:build !race

// The docs' chat-fixture tables are measured by the same functions the
// commands call, on the committed model; this test measures again and
// fails when docs/geometry.md says otherwise. It is left out under -race
// (minutes there); `make test` runs it without.

package chatfixture

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/teh"
)

var update = flag.Bool("update", false, "rewrite docs/geometry.md's chat-fixture tables from this run")

const (
	docsPath   = "../../../docs/geometry.md"
	heldoutDir = fixtureDir + "/heldout"
	tableBegin = "<!-- chat-fixture tables: begin (written by `go test ./internal/testkit/chatfixture -run TestDocsChatTables -update`) -->"
	tableEnd   = "<!-- chat-fixture tables: end -->"
	// The commands' settings the tables name.
	docThreads     = 2
	docReplyTokens = 16 // eval teh --positions --reply-tokens
	docRefusalToks = 32 // eval refusals' default --reply-tokens
	docOGDTokens   = 32 // eval ogd's default --n
	docOGDConcepts = 16
	docOGDSeed     = 1
	docOGDTemp     = "0.8"
)

// measured is everything the tables show.
type measured struct {
	sha  string
	prof *geometry.Profile
	teh  *evaluate.TEHReport
	ref  *evaluate.RefusalReport
	ogd  *evaluate.OGDReport
}

func measure(t *testing.T) measured {
	t.Helper()
	b, err := os.ReadFile(modelPath)
	if err != nil {
		t.Fatalf("the chat fixture is missing (scripts/fixtures/chat/README.md makes it): %v", err)
	}
	sum := sha256.Sum256(b)
	ms := measured{sha: hex.EncodeToString(sum[:])}
	s, err := session.Open(modelPath, session.Options{Threads: docThreads, Ctx: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	src := s.Geometry().CalibrationSource()
	set, err := prompts.Default()
	if err != nil {
		t.Fatal(err)
	}
	if ms.prof, err = geometry.Calibrate(ctx, src, set, geometry.DefaultOptions(), nil); err != nil {
		t.Fatal(err)
	}
	if ms.prof.Model, err = s.Probe().Ref(); err != nil {
		t.Fatal(err)
	}
	hs, err := prompts.Default()
	if err != nil {
		t.Fatal(err)
	}
	if err := hs.UseHeldoutDir(heldoutDir); err != nil {
		t.Fatal(err)
	}
	if ms.teh, err = evaluate.TEH(ctx, src, ms.prof, hs, nil); err != nil {
		t.Fatal(err)
	}
	if ms.teh.Positions, err = evaluate.TEHPositions(ctx, src, ms.prof, hs, docReplyTokens, nil); err != nil {
		t.Fatal(err)
	}
	if ms.ref, err = evaluate.Refusals(ctx, src, ms.prof, set, evaluate.RefusalOptions{MaxTokens: docRefusalToks}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Geometry().Set(ms.prof); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"max_tokens", strconv.Itoa(docOGDTokens)}, {"temperature", docOGDTemp}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if ms.ogd, err = session.EvaluateOGD(ctx, s, hs.BenignHeldout(docOGDConcepts), []float64{0.2, 0.1, 0.05}, docOGDSeed, nil); err != nil {
		t.Fatal(err)
	}
	return ms
}

func pct(a, b int) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%d %%", int(math.Round(100*float64(a)/float64(b))))
}

func auroc(a *float64) string {
	if a == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *a)
}

// lowFPR is a TPR at 1 % FPR as the docs show it: detected/harmful
// (percent), with † where fewer than 100 benign prompts let 1 % allow no
// false positive.
func lowFPR(p *teh.FPRPoint) string {
	if p == nil {
		return "—"
	}
	s := fmt.Sprintf("%d/%d (%s)", p.TP, p.Positives, pct(p.TP, p.Positives))
	if p.MaxFP == 0 && p.FPR > 0 {
		s += " †"
	}
	return s
}

// render writes the tables as docs/geometry.md holds them.
func render(ms measured) string {
	var b strings.Builder
	m := "testdata/models/chat.gguf"
	fmt.Fprintf(&b, "Model `%s`, sha256 `%s`; %d threads. Profile: `isagi calibrate --model %s` (gauges at %s).\n\n",
		m, ms.sha, docThreads, m, map[bool]string{true: "each prompt's last token", false: "the prompt mean"}[ms.prof.GaugeAtLast()])
	o := ms.teh.Overall
	b.WriteString("**TEH** — `isagi eval teh --model " + m + " --set scripts/fixtures/chat/heldout --positions --reply-tokens " + strconv.Itoa(docReplyTokens) + "`\n\n")
	b.WriteString("| gauge | detected at τ | false positives | AUROC | TPR@1%FPR |\n|---|---|---|---|---|\n")
	small := false
	for _, c := range append(ms.teh.Categories, o) {
		l := lowFPR(c.TPRAtLowFPR)
		small = small || strings.HasSuffix(l, "†")
		fmt.Fprintf(&b, "| %s | %d/%d (%s) | %d/%d (%s) | %s | %s |\n", c.Name, c.TP, c.TP+c.FN, pct(c.TP, c.TP+c.FN), c.FP, c.FP+c.TN, pct(c.FP, c.FP+c.TN), auroc(c.AUROC), l)
	}
	b.WriteString("\n| read at | overall detected | false positives | AUROC | TPR@1%FPR | probe AUROC | probe TPR@1%FPR |\n|---|---|---|---|---|---|---|\n")
	for _, p := range ms.teh.Positions {
		po := p.Overall
		l, pl := lowFPR(po.TPRAtLowFPR), lowFPR(p.ProbeTPRAtLowFPR)
		small = small || strings.HasSuffix(l, "†") || strings.HasSuffix(pl, "†")
		fmt.Fprintf(&b, "| %s | %d/%d (%s) | %d/%d (%s) | %s | %s | %s | %s |\n", p.Name, po.TP, po.TP+po.FN, pct(po.TP, po.TP+po.FN), po.FP, po.FP+po.TN, pct(po.FP, po.FP+po.TN), auroc(po.AUROC), l, auroc(p.ProbeAUROC), pl)
	}
	b.WriteString("\nTPR@1%FPR: the share of harmful prompts scored above the lowest threshold that at most 1 % of the benign ones exceed (⌊0.01·N⌋ of N benign; a score equal to the threshold is not flagged).")
	if small {
		b.WriteString(" †: under 100 benign prompts, where 1 % allows no false positive: the TPR at 0 false positives.")
	}
	b.WriteString("\n")
	r := ms.ref
	b.WriteString("\n**Snipe, Heretic's metric** — `isagi eval refusals --model " + m + " --steer-scales none` (the shipped held-out pairs; the steering arms the command adds by default: the next section)\n\n")
	b.WriteString("| intervention | coords | refusals | first-token KL (nats) |\n|---|---|---|---|\n")
	for _, a := range r.Results {
		kl := "—"
		if a.Name != "none" {
			kl = fmt.Sprintf("%.2f", a.KL)
		}
		fmt.Fprintf(&b, "| %s | %d | %d/%d (%s) | %s |\n", a.Name, a.Coords, a.Refusals, r.Harmful, pct(a.Refusals, r.Harmful), kl)
	}
	g := ms.ogd
	fmt.Fprintf(&b, "\n**Safe OGD** — `isagi eval ogd --model %s --set scripts/fixtures/chat/heldout` (%d chains, seed %d, %d tokens a step, temperature %s; flagged: overall gauge ≥ τ %.1f %%)\n\n",
		m, g.Concepts, docOGDSeed, docOGDTokens, docOGDTemp, g.Tau)
	b.WriteString("| step | α | flagged explored | flagged unexplored | mean gauge explored | unexplored | refusals explored | unexplored |\n|---|---|---|---|---|---|---|---|\n")
	for i, st := range g.Steps {
		e, u := st.Explored, st.Unexplored
		fmt.Fprintf(&b, "| %d | %.2f | %d/%d | %d/%d | %.1f %% | %.1f %% | %d | %d |\n", i+1, st.Alpha, e.Flagged, e.Replies, u.Flagged, u.Replies, e.MeanTEH, u.MeanTEH, e.Refusals, u.Refusals)
	}
	return b.String()
}

var (
	number = regexp.MustCompile(`-?\d+(\.\d+)?`)
	hex64  = regexp.MustCompile(`[0-9a-f]{64}`)
)

// agree compares two renderings: the same words, the same model hash, and
// every figure within what another CPU's rounding may move (a count by 3,
// a two-decimal figure by 0.03, a one-decimal percentage by 3).
func agree(got, want string) error {
	if g, w := hex64.FindString(got), hex64.FindString(want); g != w {
		return fmt.Errorf("the docs measured model %s, the committed file is %s", w, g)
	}
	got, want = hex64.ReplaceAllString(got, ""), hex64.ReplaceAllString(want, "")
	if g, w := number.ReplaceAllString(got, "#"), number.ReplaceAllString(want, "#"); g != w {
		return fmt.Errorf("the tables' text differs")
	}
	gn, wn := number.FindAllString(got, -1), number.FindAllString(want, -1)
	for i := range gn {
		g, _ := strconv.ParseFloat(gn[i], 64)
		w, _ := strconv.ParseFloat(wn[i], 64)
		tol := 3.0
		if frac := strings.Index(wn[i], "."); frac >= 0 && len(wn[i])-frac-1 >= 2 {
			tol = 0.03
		}
		if math.Abs(g-w) > tol {
			return fmt.Errorf("figure %d: measured %s, the docs say %s", i+1, gn[i], wn[i])
		}
	}
	return nil
}

// TestDocsChatTables: docs/geometry.md's chat-fixture tables are what the
// commands measure on the committed model.
func TestDocsChatTables(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the chat fixture for a minute or two")
	}
	got := render(measure(t))
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i, j := strings.Index(text, tableBegin), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no chat-fixture tables between %q and %q", docsPath, tableBegin, tableEnd)
	}
	if *update {
		text = text[:i+len(tableBegin)] + "\n" + got + text[j:]
		if err := os.WriteFile(docsPath, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := strings.TrimSpace(text[i+len(tableBegin) : j])
	if err := agree(strings.TrimSpace(got), want); err != nil {
		t.Fatalf("docs/geometry.md's chat-fixture tables are stale: %v (rerun with -update and read the diff)\n\nmeasured:\n%s", err, got)
	}
}

// TestAgree: the comparison catches a changed figure, word or model, and
// lets rounding through.
func TestAgree(t *testing.T) {
	base := "model `" + strings.Repeat("a", 64) + "` | 239/320 (75 %) | AUROC 0.88 | 28.6 %"
	for _, c := range []struct {
		other string
		ok    bool
	}{
		{base, true},
		{strings.Replace(base, "239/320", "241/320", 1), true},
		{strings.Replace(base, "0.88", "0.90", 1), true},
		{strings.Replace(base, "0.88", "0.95", 1), false},
		{strings.Replace(base, "239/320", "200/320", 1), false},
		{strings.Replace(base, "AUROC", "F1", 1), false},
		{strings.Replace(base, strings.Repeat("a", 64), strings.Repeat("b", 64), 1), false},
	} {
		if err := agree(c.other, base); (err == nil) != c.ok {
			t.Errorf("agree(%q): %v, want ok=%v", c.other, err, c.ok)
		}
	}
}
