package geometry_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/isagi-lab/isagi/session"
)

// memorySession is the kjv fixture with the test profile, greedy and
// short replies: what the memory tests drive.
func memorySession(t *testing.T) *session.Session {
	t.Helper()
	s := openKJV(t)
	if err := s.SetGeometry(kjvProfile(t)); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"temperature", "0"}, {"max_tokens", "4"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func send(t *testing.T, s *session.Session, in string) session.Turn {
	t.Helper()
	turn, err := s.Send(context.Background(), in, func(session.Event) {})
	if err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	if turn.COG == nil {
		t.Fatalf("%q: no COG decision", in)
	}
	return turn
}

// Near-misses — one name, number or negation changed — are never answered
// from memory, however close the embedding puts them (issue 19: "And
// Moses said" then "And Aaron said" was served the first one's answer at
// d 0.0129); the very same request still is.
func TestMemoryNearMissesNotServed(t *testing.T) {
	pairs := [][2]string{
		{"And Moses said", "And Aaron said"},
		{"And the LORD spake unto Moses", "And the LORD spake unto Joshua"},
		{"In the third year of Hezekiah king of Judah", "In the fourth year of Hezekiah king of Judah"},
		{"And he begat 30 sons and 30 daughters", "And he begat 13 sons and 30 daughters"},
		{"Is the water of the river safe to drink", "Is the water of the river not safe to drink"},
		{"Thou shalt kill the lamb", "Thou shalt not kill the lamb"},
		{"Is 3.5 cubits the length of the ark", "Is 35 cubits the length of the ark"},
	}
	for _, pr := range pairs {
		s := memorySession(t)
		first := send(t, s, pr[0])
		near := send(t, s, pr[1])
		t.Logf("%q after %q: tier %s d %.4f, served %v", pr[1], pr[0], near.COG.Tier, near.COG.Distance, near.COG.Retrieved)
		if near.COG.Retrieved || near.Stop == "retrieved" {
			t.Errorf("%q was answered from memory with the answer to %q (d %.4f)", pr[1], pr[0], near.COG.Distance)
		}
		again := send(t, s, pr[0])
		if !again.COG.Retrieved || again.Text != first.Text {
			t.Errorf("the exact repeat %q was not served from memory (%+v)", pr[0], again.COG)
		}
	}
}

// distinctPrompts are n different requests of one shape, the issue's
// scenario: "In the Nth year X smote Y and Z".
func distinctPrompts(n int) []string {
	kings := []string{"Joash", "Hezekiah", "Asa", "Jehu", "Ahab", "Uzziah", "Josiah", "Amaziah", "Jotham", "Omri", "Baasha"}
	lands := []string{"Edom", "Moab", "Ammon", "Syria", "Gath", "Philistia", "Tyre", "Sidon", "Egypt", "Assyria", "Gaza", "Damascus", "Elath"}
	out := make([]string, n)
	for i := range n {
		y, z := lands[i%len(lands)], lands[(i*5+3)%len(lands)]
		if y == z {
			z = lands[(i*5+4)%len(lands)]
		}
		out[i] = fmt.Sprintf("In the %s year %s smote %s and %s", ordinal(i+1), kings[i%len(kings)], y, z)
	}
	return out
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprint(n) + suffix
}

// The scenario: 100 distinct requests of one shape serve no
// answer from memory (the seed's rule served 95 of 100); asking some of
// them again, word for word, serves each one its own answer.
func TestMemoryHundredDistinctPromptsServeNothing(t *testing.T) {
	s := memorySession(t)
	ps := distinctPrompts(100)
	answers := map[string]string{}
	served, closest := 0, 1.0
	for _, p := range ps {
		s.Clear() // a fresh text each turn keeps the test fast; the manifold stays
		turn := send(t, s, p)
		if turn.COG.Retrieved {
			served++
			t.Errorf("%q was answered from memory (nearest %q, d %.4f)", p, turn.COG.Nearest, turn.COG.Distance)
		}
		closest = min(closest, turn.COG.Distance)
		answers[p] = turn.Text
	}
	t.Logf("%d of %d served from memory; closest distinct pair d %.4f", served, len(ps), closest)
	for _, p := range ps[:10] {
		s.Clear()
		turn := send(t, s, p)
		if !turn.COG.Retrieved || turn.Text != answers[p] {
			t.Errorf("the repeat %q was not served its own answer: %+v %q, want %q", p, turn.COG, turn.Text, answers[p])
		}
	}
}
