package geometry_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/engine/session"
)

// Ten different turns grow the manifold; asking one of them again is
// answered from memory with the stored answer; the manifold survives a
// session file.
func TestLivingManifoldKJV(t *testing.T) {
	p := kjvProfile(t)
	s := openKJV(t)
	if err := s.SetGeometry(p); err != nil {
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
	st, _ := s.ManifoldStats()
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
	if err := s.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	s2 := openKJV(t)
	notes, err := s2.Load(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.SetGeometry(p); err != nil {
		t.Fatal(err)
	}
	st2, ok := s2.ManifoldStats()
	if !ok || st2.Trajectories != 10 || st2.Growth != st.Growth {
		t.Fatalf("reloaded manifold %+v (notes %v), want %d trajectories, growth %g", st2, notes, 10, st.Growth)
	}
}
