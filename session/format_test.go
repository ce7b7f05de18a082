package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatSetting: the format setting holds every reply of a chat model
// that knows nothing of JSON to a JSON Schema's document, is saved with
// the session, opens without its file with a note, and is refused in one
// sentence when it is neither json nor a schema or grammar file.
func TestFormatSetting(t *testing.T) {
	path := chatModel(t)
	dir := t.TempDir()
	schema := filepath.Join(dir, "s.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"ok":{"type":"boolean"},"colour":{"enum":["red","blue"]}},"required":["ok","colour"],"additionalProperties":false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	set := greedy()
	set.MaxTokens = 120
	s := open(t, path, Options{Settings: set})
	if err := s.Set("format", schema); err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{"Hello world", "Another one"} {
		turn := send(t, s, msg)
		var v struct {
			OK     *bool  `json:"ok"`
			Colour string `json:"colour"`
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(turn.Text)), &v); err != nil || v.OK == nil || (v.Colour != "red" && v.Colour != "blue") {
			t.Fatalf("reply %q is not a document of the schema (%v); stop %q", turn.Text, err, turn.Stop)
		}
	}
	file := filepath.Join(dir, "f.miku")
	if err := s.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	b := open(t, path, Options{})
	if _, err := b.Files().Load(context.Background(), file, LoadOptions{}); err != nil || b.Settings().Format != schema {
		t.Fatalf("loaded: %v, format %q", err, b.Settings().Format)
	}
	os.Remove(schema)
	c := open(t, path, Options{})
	notes, err := c.Files().Load(context.Background(), file, LoadOptions{})
	if err != nil || c.Settings().Format != "" || !strings.Contains(strings.Join(notes, " "), "runs without") {
		t.Fatalf("loaded without the schema: %v, format %q, notes %q", err, c.Settings().Format, notes)
	}
	if err := s.Set("format", "yaml"); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("format yaml: %v", err)
	}
	if err := s.Set("format", "off"); err != nil || s.Settings().Format != "" {
		t.Fatalf("format off: %v", err)
	}
	if err := s.Set("format", "json"); err != nil {
		t.Fatal(err)
	}
	if turn := send(t, s, "Hi"); !strings.HasPrefix(strings.TrimSpace(turn.Text), "{") {
		t.Fatalf("format json: %q", turn.Text)
	}
}
