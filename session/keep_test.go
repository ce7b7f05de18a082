package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/testkit/quickprofile"
	"github.com/isagi-lab/isagi/miku"
)

// demoSession opens the embedded demo model (completion mode, greedy,
// short replies) with its geometry profiles in profiles ("": nowhere).
func demoSession(t *testing.T, profiles string) *Session {
	t.Helper()
	set := greedy()
	set.MaxTokens = 8
	s, err := OpenBytes(demo.Name, demo.Model, Options{Settings: set, ProfileDir: profiles, AppVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// quickProfile calibrates a quick profile for s's model (the geometry
// means nothing on a tiny model, but every mechanism runs) and attaches it.
func quickProfile(t *testing.T, s *Session) *geometry.Profile {
	t.Helper()
	p := quickprofile.Calibrate(t, s.gm.CalibrationSource())
	var err error
	if p.Model, err = s.pr.Ref(); err != nil {
		t.Fatal(err)
	}
	if err := s.gm.Set(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// sectionsOf reads the sections of the .miku file at path by name.
func sectionsOf(t *testing.T, path string) map[string]miku.Section {
	t.Helper()
	f, err := miku.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]miku.Section{}
	for _, s := range f.Sections {
		out[s.Name] = s
	}
	return out
}

// sameSections fails unless got holds every section of want, byte for
// byte, with the same required bit.
func sameSections(t *testing.T, got, want map[string]miku.Section, names ...string) {
	t.Helper()
	for _, n := range names {
		g, ok := got[n]
		w := want[n]
		if !ok || !bytes.Equal(g.Data, w.Data) || g.Required != w.Required {
			t.Errorf("section %q: present %v, %d bytes (required %v), want %d bytes (required %v), unchanged",
				n, ok, len(g.Data), g.Required, len(w.Data), w.Required)
		}
	}
}

func hasNote(notes []string, words ...string) bool {
	return slices.ContainsFunc(notes, func(n string) bool {
		for _, w := range words {
			if !strings.Contains(n, w) {
				return false
			}
		}
		return true
	})
}

// Hardening II, item 1: a session file's manifold that cannot be used
// where the session is resumed is kept in the file byte for byte through a
// turn and a save, and a note says why it is inactive.
func TestSavedManifoldIsKept(t *testing.T) {
	a := demoSession(t, "")
	p := quickProfile(t, a)
	send(t, a, "And God said")
	dir := t.TempDir()
	file := filepath.Join(dir, "a.miku")
	if err := a.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	if _, ok := sectionsOf(t, file)[sectionCOG]; !ok {
		t.Fatal("the saved session has no manifold: the test proves nothing")
	}
	// variant writes a copy of file with one section replaced.
	variant := func(t *testing.T, name, section string, data []byte) string {
		t.Helper()
		f, err := miku.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Sections {
			if f.Sections[i].Name == section {
				f.Sections[i].Data = data
			}
		}
		path := filepath.Join(dir, name+".miku")
		if err := miku.Write(path, f); err != nil {
			t.Fatal(err)
		}
		return path
	}

	// isagi run --session where the profile is not (another machine):
	// Load, LoadGeometry finds none, Notes, one turn, save.
	t.Run("no profile here", func(t *testing.T) {
		path := variant(t, "no-profile", "", nil)
		before := sectionsOf(t, path)
		b := demoSession(t, t.TempDir()) // an empty profile directory
		notes, err := b.Files().Load(context.Background(), path, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if loaded, err := b.Geometry().Load(); loaded || err != nil {
			t.Fatalf("LoadGeometry from an empty directory: %v, %v", loaded, err)
		}
		notes = append(notes, b.Notes()...)
		if !hasNote(notes, "inactive", "no geometry profile", "kept in the session file unchanged") {
			t.Fatalf("no note says why the manifold is inactive: %q", notes)
		}
		if again := b.Notes(); len(again) != 0 {
			t.Fatalf("the note was told twice: %q", again)
		}
		send(t, b, " more")
		if err := b.Files().Save(context.Background(), path, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		after := sectionsOf(t, path)
		sameSections(t, after, before, sectionCOG, sectionCOGProfile)
		if bytes.Equal(after[sectionConversation].Data, before[sectionConversation].Data) {
			t.Fatal("the turn was not saved")
		}

		// Where the profile is (in the profile directory, attached by
		// LoadGeometry after the load, as isagi run --session does), the
		// manifold is in use again and nothing is said about it.
		c := demoSession(t, t.TempDir())
		pp, err := c.Geometry().profilePath()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Save(pp, "test"); err != nil {
			t.Fatal(err)
		}
		notes, err = c.Files().Load(context.Background(), path, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if loaded, err := c.Geometry().Load(); !loaded || err != nil {
			t.Fatalf("LoadGeometry: %v, %v", loaded, err)
		}
		if notes = append(notes, c.Notes()...); len(notes) != 0 {
			t.Fatalf("notes with the profile attached: %q", notes)
		}
		if st, ok := c.Memory().Stats(); !ok || st.Trajectories != 1 {
			t.Fatalf("the manifold did not come back: %+v, %v", st, ok)
		}
	})

	// A manifold the attached profile cannot use — measured in another
	// profile, or unreadable (a newer encoding) — is not replaced by a
	// new one either.
	otherProfile, err := json.Marshal(cogProfile{Fingerprint: "0123456789abcdef", K: p.K})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		section string
		data    []byte
		note    string
	}{
		{"another profile", sectionCOGProfile, otherProfile, "another geometry profile"},
		{"unreadable", sectionCOG, []byte("a manifold from a newer ISAGI"), "could not be read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := variant(t, strings.ReplaceAll(c.name, " ", "-"), c.section, c.data)
			before := sectionsOf(t, path)
			s := demoSession(t, "")
			if err := s.gm.Set(p); err != nil {
				t.Fatal(err)
			}
			notes, err := s.fl.Load(context.Background(), path, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !hasNote(notes, c.note, "kept in the session file unchanged") {
				t.Fatalf("notes %q", notes)
			}
			if _, ok := s.mem.Stats(); ok {
				t.Fatal("a manifold is in use")
			}
			send(t, s, " more")
			if err := s.fl.Save(context.Background(), path, SaveOptions{}); err != nil {
				t.Fatal(err)
			}
			sameSections(t, sectionsOf(t, path), before, sectionCOG, sectionCOGProfile)
		})
	}
}

// Hardening II, item 1 generalised: a section this build does not know
// (a newer ISAGI's) survives a load and a save byte for byte — the whole
// file when nothing else changed, the section through a turn.
func TestUnknownSectionSurvivesLoadSave(t *testing.T) {
	a := demoSession(t, "")
	send(t, a, "And God said")
	dir := t.TempDir()
	f1 := filepath.Join(dir, "a.miku")
	if err := a.Files().Save(context.Background(), f1, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	f, err := miku.Read(f1)
	if err != nil {
		t.Fatal(err)
	}
	f.Sections = append(f.Sections, miku.Section{Name: "x.future", Data: []byte("\x00future\xffstate\n")})
	if err := miku.Write(f1, f); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(f1)
	if err != nil {
		t.Fatal(err)
	}

	b := demoSession(t, "")
	notes, err := b.Files().Load(context.Background(), f1, LoadOptions{})
	if err != nil || !hasNote(notes, `"x.future"`, "kept in the file unchanged") {
		t.Fatalf("load: %v, notes %q", err, notes)
	}
	f2 := filepath.Join(dir, "b.miku")
	if err := b.Files().Save(context.Background(), f2, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(f2); !bytes.Equal(got, orig) {
		t.Fatalf("load → save changed the file (%d bytes, was %d)", len(got), len(orig))
	}
	before := sectionsOf(t, f2)
	send(t, b, " more")
	if err := b.Files().Save(context.Background(), f2, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	sameSections(t, sectionsOf(t, f2), before, "x.future")
}

// Hardening II, item 2: NewConversation (the TUI's /clear) after a save
// starts a conversation that is saved to a new file, leaves the old file
// as it was, and forgets the old conversation everywhere: the new file
// holds neither its prompt nor its answer, in any section (conversation,
// manifold, served answers). The new conversation answers as a fresh
// session does.
func TestNewConversationForgets(t *testing.T) {
	a := demoSession(t, "")
	p := quickProfile(t, a)
	const oldPrompt = "Zerubbabel spake unto Darius"
	first := send(t, a, oldPrompt)
	if again := send(t, a, oldPrompt); again.COG == nil || !again.COG.Retrieved {
		t.Fatalf("the repeat was not served from memory (%+v): the test would not cover the served record", again.COG)
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "old.miku")
	if err := a.Files().Save(context.Background(), old, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	oldBytes, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	forgotten := []string{oldPrompt, first.Text}
	for _, text := range forgotten {
		if !bytes.Contains(oldBytes, []byte(text)) {
			t.Fatalf("the old file does not hold %q: grepping for it proves nothing", text)
		}
	}

	next := filepath.Join(dir, "next.miku")
	if err := a.NewConversation(next); err != nil {
		t.Fatal(err)
	}
	if a.Files().Path() != next || len(a.Conversation().Transcript()) != 0 || len(a.Memory().Served()) != 0 {
		t.Fatalf("after NewConversation: file %q, %d messages, %d served", a.Files().Path(), len(a.Conversation().Transcript()), len(a.Memory().Served()))
	}
	if used, _ := a.Conversation().ContextUsed(); used != 0 {
		t.Fatalf("the KV cache holds %d tokens", used)
	}
	if st, ok := a.Memory().Stats(); !ok || st.Trajectories != 0 || st.Growth != 0 {
		t.Fatalf("the manifold after NewConversation: %+v, %v", st, ok)
	}
	const newPrompt = "In the beginning"
	turn := send(t, a, newPrompt)
	fresh := demoSession(t, "")
	if err := fresh.Geometry().Set(p); err != nil {
		t.Fatal(err)
	}
	if want := send(t, fresh, newPrompt); turn.Text != want.Text {
		t.Fatalf("the new conversation answers %q, a fresh session %q", turn.Text, want.Text)
	}
	for _, text := range forgotten {
		if strings.Contains(newPrompt+turn.Text, text) {
			t.Fatalf("the new conversation itself holds %q: pick other prompts", text)
		}
	}
	if err := a.Files().Save(context.Background(), a.Files().Path(), SaveOptions{}); err != nil { // the TUI's autosave
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(old); !bytes.Equal(got, oldBytes) {
		t.Fatal("the save after NewConversation changed the old conversation's file")
	}
	newBytes, err := os.ReadFile(next)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range forgotten {
		esc, _ := json.Marshal(text)
		if bytes.Contains(newBytes, []byte(text)) || bytes.Contains(newBytes, esc[1:len(esc)-1]) {
			t.Errorf("the new conversation's file holds the forgotten %q", text)
		}
	}
	if !bytes.Contains(newBytes, []byte(newPrompt)) {
		t.Error("the new conversation's file lacks its own prompt")
	}

	// The next file must not exist: a name someone else took is refused.
	if err := a.NewConversation(old); err != nil {
		t.Fatal(err)
	}
	send(t, a, newPrompt)
	if err := a.Files().Save(context.Background(), old, SaveOptions{}); !errors.Is(err, ErrExists) {
		t.Fatalf("a new conversation saved over an existing file: %v", err)
	}
	if got, _ := os.ReadFile(old); !bytes.Equal(got, oldBytes) {
		t.Fatal("the refused save changed the file")
	}
}

// TestDefaultMaxTokensFitsTheWindow: the TUI's default reply length fits
// the model's window — the demo's 256 tokens gets 128, not 512, so its
// first reply is not cut off by a full window.
func TestDefaultMaxTokensFitsTheWindow(t *testing.T) {
	s, err := OpenBytes(demo.Name, demo.Model, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, window := s.cv.ContextUsed(); s.Settings().MaxTokens > window/2 {
		t.Fatalf("default max_tokens %d in a %d-token window", s.Settings().MaxTokens, window)
	}
	turn, err := s.Send(context.Background(), "And God said", func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if turn.Stop == "context full" {
		t.Fatalf("the first reply with default settings filled the window (%d tokens)", turn.Tokens)
	}
	// Settings given explicitly are kept as given.
	s2, err := OpenBytes(demo.Name, demo.Model, Options{Settings: Settings{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1, MaxTokens: 512}})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := s2.Settings().MaxTokens; got != 512 {
		t.Errorf("explicit max_tokens became %d", got)
	}
}
