package geometry_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/session"
)

// Ten different turns grow the manifold; asking one of them again is
// answered from memory with the stored answer; the manifold survives a
// session file.
func TestLivingManifoldKJV(t *testing.T) {
	p := kjvProfile(t)
	s := openKJV(t)
	if err := s.Geometry().Set(p); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"temperature", "0"}, {"max_tokens", "12"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	turns := []string{
		"And God said, Let there be light",
		"The LORD is my shepherd; I shall not want",
		"In the beginning was the Word",
		"Blessed are the poor in spirit",
		"Now the serpent was more subtil than any beast",
		"By the rivers of Babylon, there we sat down",
		"Vanity of vanities, saith the Preacher",
		"And Noah begat three sons",
		"Then came the word of the LORD unto Jonah",
		"Love is patient and kind; it does not envy",
	}
	var growth []float64
	answers := map[string]string{}
	for i, in := range turns {
		turn, err := s.Send(context.Background(), in+"\n", func(session.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		if turn.COG == nil {
			t.Fatalf("turn %d: no COG decision", i)
		}
		t.Logf("turn %d: %s d=%.4f growth %.4f", i, turn.COG.Tier, turn.COG.Distance, turn.COG.Growth)
		growth = append(growth, turn.COG.Growth)
		answers[in] = turn.Text
		if i > 0 && growth[i] < growth[i-1] {
			t.Fatalf("growth fell from %g to %g", growth[i-1], growth[i])
		}
	}
	if growth[len(growth)-1] <= 0 {
		t.Fatalf("ten turns left the metric at the identity (growth %v)", growth)
	}
	st, _ := s.Memory().Stats()
	if st.Trajectories != 10 || len(st.Points) != 10 || len(st.TopEigen) == 0 {
		t.Fatalf("manifold stats %+v", st)
	}

	again := turns[3]
	var streamed string
	turn, err := s.Send(context.Background(), again+"\n", func(e session.Event) { streamed += e.Piece })
	if err != nil {
		t.Fatal(err)
	}
	if turn.COG == nil || turn.COG.Tier != "retrieve" || !turn.COG.Retrieved || turn.Stop != "retrieved" {
		t.Fatalf("the repeated turn was not retrieved: %+v, stop %q", turn.COG, turn.Stop)
	}
	if streamed != answers[again] || turn.Text != answers[again] {
		t.Fatalf("retrieved %q, stored answer %q", streamed, answers[again])
	}
	if turn.COG.Growth != growth[len(growth)-1] {
		t.Fatal("a retrieved turn changed the metric")
	}

	// Save and load into a fresh session: the manifold comes back once the
	// same profile is attached.
	path := filepath.Join(t.TempDir(), "s.miku")
	if err := s.Files().Save(context.Background(), path, session.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	s2 := openKJV(t)
	notes, err := s2.Files().Load(context.Background(), path, session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Geometry().Set(p); err != nil {
		t.Fatal(err)
	}
	st2, ok := s2.Memory().Stats()
	if !ok || st2.Trajectories != 10 || st2.Growth != st.Growth {
		t.Fatalf("reloaded manifold %+v (notes %v), want %d trajectories, growth %g", st2, notes, 10, st.Growth)
	}
}

// The exploration step leaves the forbidden coordinates at zero right
// after it (at its block), α = 0 changes nothing, and a chain is
// reproducible for a seed.
func TestSafeOGD(t *testing.T) {
	p := kjvProfile(t)
	plain := openKJV(t)
	explored := openKJV(t)
	for _, s := range []*session.Session{plain, explored} {
		if err := s.Geometry().Set(p); err != nil {
			t.Fatal(err)
		}
		for _, kv := range [][2]string{{"temperature", "0"}, {"max_tokens", "16"}, {"ogd_alpha", "0"}} {
			if err := s.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	reply := func(s *session.Session) string {
		s.Clear()
		turn, err := s.Send(context.Background(), "And the LORD spake unto Moses", func(session.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		return turn.Text
	}
	base := reply(plain)
	if got := reply(explored); got != base {
		t.Fatalf("α = 0 changed the reply: %q vs %q", got, base)
	}
	if err := explored.Set("ogd_alpha", "0.3"); err != nil {
		t.Fatal(err)
	}
	if got := reply(explored); got == base {
		t.Logf("α = 0.3 left the greedy reply unchanged (possible on a tiny model): %q", got)
	}
	if err := explored.Set("ogd_alpha", "0.9"); err == nil {
		t.Fatal("α = 0.9 was accepted")
	}
	s := openKJV(t)
	if err := s.Set("ogd_alpha", "0.2"); err == nil {
		t.Fatal("OGD without a profile was accepted")
	}

	c1, err := explored.Geometry().ExploreChain(context.Background(), "a garden at dawn", []float64{0.2, 0.1, 0.05}, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := explored.Geometry().ExploreChain(context.Background(), "a garden at dawn", []float64{0.2, 0.1, 0.05}, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c1.Steps) != 3 || fmt.Sprint(c1.Steps) != fmt.Sprint(c2.Steps) || c1.Score != c2.Score {
		t.Fatalf("two chains with one seed differ:\n%+v\n%+v", c1, c2)
	}
	if c1.Score.Total < 0 || c1.Score.Total > 100 {
		t.Fatalf("creativity %v outside 0–100", c1.Score)
	}
	if explored.Settings().OGDAlpha != 0.3 {
		t.Fatalf("the chain did not restore α: %v", explored.Settings().OGDAlpha)
	}
}

func TestExplorerStepThroughTheEngine(t *testing.T) {
	p := kjvProfile(t)
	dir, source, err := geometry.Direction(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, err := geometry.NewExplorer(p, dir, 0.2, source)
	if err != nil {
		t.Fatal(err)
	}
	s := openKJV(t)
	st, err := s.Geometry().CalibrationSource().Model.NewStateOn(64, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	before, after := &recorder{layer: p.Layer}, &recorder{layer: p.Layer}
	for _, h := range []any{before, x, after} {
		if _, err := st.AddHook(h); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := s.Geometry().CalibrationSource().Text("And the LORD spake unto Moses")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Forward(ids, nil); err != nil {
		t.Fatal(err)
	}
	for pos := range ids {
		h := make([]float64, p.D)
		var moved float64
		for i, v := range after.got[pos] {
			h[i] = float64(v)
			moved = math.Max(moved, math.Abs(float64(v-before.got[pos][i])))
		}
		f, err := x.P.Forbidden(h)
		if err != nil {
			t.Fatal(err)
		}
		var norm float64
		for i := range h {
			norm += (h[i] - p.Mu[i]) * (h[i] - p.Mu[i])
		}
		for j, v := range f {
			if math.Abs(v) > 1e-5*math.Sqrt(norm) {
				t.Fatalf("position %d: Q_fᵀ(h−μ)[%d] = %g after the step (‖h−μ‖ %g)", pos, j, v, math.Sqrt(norm))
			}
		}
		if moved == 0 {
			t.Fatalf("position %d: the step did not move the stream", pos)
		}
	}
}

// A turn answered from memory can be regenerated: the fresh answer
// replaces the stored one, and the text keeps one copy of the exchange.
func TestRegenerateRetrieved(t *testing.T) {
	p := kjvProfile(t)
	s := openKJV(t)
	if err := s.Geometry().Set(p); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"temperature", "0.9"}, {"seed", "5"}, {"max_tokens", "10"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	in := "Blessed are the meek\n"
	first, err := s.Send(ctx, in, func(session.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Send(ctx, in, func(session.Event) {})
	if err != nil || !again.COG.Retrieved {
		t.Fatalf("second ask: %+v, %v", again.COG, err)
	}
	// The running text, whole: the transcript cuts it into turns.
	text := func() string {
		var b strings.Builder
		for _, m := range s.Conversation().Transcript() {
			b.WriteString(m.Content)
		}
		return b.String()
	}
	before := text()
	fresh, err := s.Conversation().Regenerate(ctx, func(session.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Stop == "retrieved" || fresh.COG == nil || fresh.COG.Retrieved || fresh.Tokens == 0 {
		t.Fatalf("regenerated turn %+v (COG %+v)", fresh, fresh.COG)
	}
	st, _ := s.Memory().Stats()
	if st.Trajectories != 1 {
		t.Fatalf("%d trajectories after regenerating: the fresh answer should replace the stored one", st.Trajectories)
	}
	after := text()
	want := strings.TrimSuffix(before, in+first.Text) + in + fresh.Text
	if after != want {
		t.Fatalf("text after regenerating:\n%q\nwant\n%q", after, want)
	}
	third, err := s.Send(ctx, in, func(session.Event) {})
	if err != nil || !third.COG.Retrieved || third.Text != fresh.Text {
		t.Fatalf("after regenerating, memory serves %q (%+v), want the fresh %q", third.Text, third.COG, fresh.Text)
	}
}
