package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/miku"
)

// ErrOtherModel is returned by Load for a session saved with another model.
var ErrOtherModel = errors.New("session was saved with another model")

// sectionConversation is the .miku section holding the conversation.
const sectionConversation = "conversation"

// conversation is the JSON body of the conversation section.
type conversation struct {
	Mode     string         `json:"mode"`
	Messages []chat.Message `json:"messages,omitempty"`
	Text     string         `json:"text,omitempty"`
}

// ModelSHA256 is the sha256 of the model file (computed once, on first
// use: a session file names its model by content, not by path).
func (s *Session) ModelSHA256() (string, error) {
	if s.sha != "" {
		return s.sha, nil
	}
	h := sha256.New()
	if s.src != nil {
		h.Write(s.src)
	} else {
		f, err := os.Open(s.info.Path)
		if err != nil {
			return "", fmt.Errorf("session: hashing the model: %w", err)
		}
		defer f.Close()
		if _, err := io.Copy(h, f); err != nil {
			return "", fmt.Errorf("session: hashing the model: %w", err)
		}
	}
	s.sha = hex.EncodeToString(h.Sum(nil))
	return s.sha, nil
}

// Save writes the conversation and the knobs to a .miku file, atomically:
// an interrupted save leaves the previous file as it was. now stamps the
// file (Updated; Created too for a new file).
func (s *Session) Save(path, appVersion string, now time.Time) error {
	ref, err := s.ModelRef()
	if err != nil {
		return err
	}
	knobs, err := json.Marshal(s.set)
	if err != nil {
		return err
	}
	conv, err := json.Marshal(conversation{Mode: s.info.Mode.String(), Messages: s.msgs, Text: s.text})
	if err != nil {
		return err
	}
	created := now
	if s.file == path && !s.created.IsZero() {
		created = s.created
	}
	f := &miku.File{
		Header: miku.Header{
			FormatVersion: miku.FormatVersion,
			AppVersion:    appVersion,
			Created:       created.UTC(),
			Updated:       now.UTC(),
			Model:         ref,
			Knobs:         knobs,
		},
		Sections: []miku.Section{{Name: sectionConversation, Required: true, Data: conv}},
	}
	cs, err := s.cogSections()
	if err != nil {
		return err
	}
	for _, c := range cs {
		// Not required: an older reader keeps the conversation and skips
		// the manifold.
		f.Sections = append(f.Sections, miku.Section{Name: c.name, Data: c.data})
	}
	if err := miku.Write(path, f); err != nil {
		return err
	}
	s.file, s.created = path, created
	return nil
}

// File is the session file this conversation was loaded from or last
// saved to ("" if none): the TUI autosaves to it after every turn.
func (s *Session) File() string { return s.file }

// Load restores the conversation and knobs of a .miku file into s. A file
// saved with another model is refused (ErrOtherModel) unless force, in
// which case the conversation and knobs load and the model-bound state
// does not; the returned notes say what was skipped, including sections
// this version does not know.
func (s *Session) Load(path string, force bool) (notes []string, err error) {
	f, err := miku.Read(path)
	if err != nil {
		return nil, err
	}
	sum, err := s.ModelSHA256()
	if err != nil {
		return nil, err
	}
	if f.Header.Model.SHA256 != sum {
		if !force {
			return nil, fmt.Errorf("%s: %w (%s, sha256 %.12s…; this is %s, %.12s…): pass --force-model to load the conversation anyway",
				path, ErrOtherModel, f.Header.Model.File, f.Header.Model.SHA256, filepath.Base(s.info.Path), sum)
		}
		notes = append(notes, fmt.Sprintf("saved with %s: conversation and knobs loaded", f.Header.Model.File))
	}
	skip, required := f.Unknown(sectionConversation, sectionCOG, sectionCOGProfile)
	if len(required) > 0 {
		return nil, fmt.Errorf("%s: needs sections this version cannot read: %v — update ISAGI", path, required)
	}
	for _, name := range skip {
		notes = append(notes, fmt.Sprintf("skipped section %q, which this version does not know", name))
	}
	sec, ok := f.Section(sectionConversation)
	if !ok {
		return nil, fmt.Errorf("%s: no conversation section", path)
	}
	var conv conversation
	if err := json.Unmarshal(sec.Data, &conv); err != nil {
		return nil, fmt.Errorf("%s: conversation section: %w", path, err)
	}
	var set Settings
	if len(f.Header.Knobs) > 0 {
		if err := json.Unmarshal(f.Header.Knobs, &set); err != nil {
			return nil, fmt.Errorf("%s: knobs: %w", path, err)
		}
		if err := s.apply(set); err != nil {
			return nil, fmt.Errorf("%s: knobs: %w", path, err)
		}
	}
	s.gen.Reset(s.set.Seed)
	s.msgs, s.text = conv.Messages, conv.Text
	s.file, s.created = path, f.Header.Created
	if f.Header.Model.SHA256 == sum {
		notes = append(notes, s.loadCOG(f)...)
	} else if _, ok := f.Section(sectionCOG); ok {
		notes = append(notes, "the living manifold belongs to the other model and was not loaded")
	}
	return notes, nil
}

// Transcript is the conversation so far, for display: chat messages, or
// the running text as one "text" entry in completion mode.
func (s *Session) Transcript() []chat.Message {
	if s.tmpl == nil {
		if s.text == "" {
			return nil
		}
		return []chat.Message{{Role: "text", Content: s.text}}
	}
	return append([]chat.Message(nil), s.msgs...)
}

// SaveFile is Save with the session's app version and the current time
// (the TUI's /save, ctrl+s and autosave).
func (s *Session) SaveFile(path string) error {
	return s.Save(path, s.appVersion, time.Now())
}

// LoadFile is Load (the TUI's /load).
func (s *Session) LoadFile(path string, force bool) ([]string, error) {
	return s.Load(path, force)
}
