package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/conversation"
	"github.com/isagi-lab/isagi/miku"
)

// ErrOtherModel is returned by Load for a session saved with another model.
var ErrOtherModel = errors.New("session was saved with another model")

// sectionConversation is the .miku section holding the conversation.
const sectionConversation = "conversation"

// savedConv is the JSON body of the conversation section.
type savedConv struct {
	Mode     string         `json:"mode"`
	Messages []chat.Message `json:"messages,omitempty"`
	Text     string         `json:"text,omitempty"`
	// Parts cut Text into the user's inputs and the model's continuations
	// (completion mode). Older files lack it: Text then shows as one block.
	Parts []chat.Message `json:"parts,omitempty"`
}

// Roles of completion mode's transcript parts.
const (
	RolePrompt       = conversation.RolePrompt
	RoleContinuation = conversation.RoleContinuation
)

// savedConversation is the conversation section's body for r.
func savedConversation(mode Mode, r conversation.Record) savedConv {
	return savedConv{Mode: mode.String(), Messages: r.Messages, Text: r.Text, Parts: r.Parts}
}

// ModelSHA256 is the sha256 of the model file (computed once, on first
// use: a session file names its model by content, not by path).
func (s *Session) ModelSHA256() (string, error) {
	if s.sha != "" {
		return s.sha, nil
	}
	if s.src == nil { // a file on disk: hashed by the one hashing path
		sum, err := FileSHA256(s.info.Path)
		if err != nil {
			return "", err
		}
		s.sha = sum
		return s.sha, nil
	}
	h := sha256.New()
	h.Write(s.src)
	s.sha = hex.EncodeToString(h.Sum(nil))
	return s.sha, nil
}

// ErrExists is returned by Save for a file that exists but that this
// session neither loaded nor saved: saving would throw away whatever it
// holds. SaveOverwrite saves over it when the user says so.
var ErrExists = errors.New("exists and is not this session's file")

// Save writes the conversation and the knobs to a .miku file, atomically:
// an interrupted save leaves the previous file as it was. now stamps the
// file (Updated; Created too for a new file).
//
// Save never discards what someone else saved. Over the session's own
// file (loaded or last saved) it writes only if the file is still as the
// session left it; if another process (another TUI, an isagi run
// --session) has saved it since, it fails with an error wrapping
// miku.ErrChanged. A file that exists but is not the session's is refused
// with ErrExists. Either way nothing is written; SaveOverwrite writes
// anyway. It waits up to miku.LockWait for a concurrent save of the same
// file (error wrapping miku.ErrLocked).
func (s *Session) Save(path, appVersion string, now time.Time) error {
	return s.save(path, appVersion, now, false, nil)
}

// SaveOverwrite is Save that writes over whatever file is at path (the
// TUI's /save! after the user confirmed).
func (s *Session) SaveOverwrite(path, appVersion string, now time.Time) error {
	return s.save(path, appVersion, now, true, nil)
}

// SaveLocked is Save (with the session's app version and the current time)
// to the file whose lock l the caller holds: isagi run --session keeps the
// lock from load to save, so that concurrent runs on one file take turns
// instead of overwriting each other.
func (s *Session) SaveLocked(l *miku.FileLock) error {
	return s.save(l.Path(), s.appVersion, time.Now(), false, l)
}

func (s *Session) save(path, appVersion string, now time.Time, overwrite bool, held *miku.FileLock) error {
	ref, err := s.ModelRef()
	if err != nil {
		return err
	}
	knobs, err := json.Marshal(s.set)
	if err != nil {
		return fmt.Errorf("session: knobs: %w", err)
	}
	conv, err := json.Marshal(savedConversation(s.info.Mode, s.conv.Record()))
	if err != nil {
		return fmt.Errorf("session: conversation: %w", err)
	}
	own := s.file != "" && samePath(s.file, path)
	created := now
	if own && !s.created.IsZero() {
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
	f.Sections = append(f.Sections, cs...)
	if sv, err := s.servedSection(); err != nil {
		return err
	} else if sv != nil {
		f.Sections = append(f.Sections, *sv)
	}
	// Sections this build does not know go back as they came: a newer
	// ISAGI's state survives a turn taken here.
	f.Sections = append(f.Sections, s.carry...)
	l := held
	if l == nil {
		ctx, cancel := context.WithTimeoutCause(context.Background(), miku.LockWait,
			fmt.Errorf("still locked after %v", miku.LockWait))
		defer cancel()
		if l, err = miku.Lock(ctx, path); err != nil {
			return err
		}
		defer l.Unlock()
	} else if !samePath(l.Path(), path) {
		return fmt.Errorf("session: save %s under the lock of %s", path, l.Path())
	}
	var expect miku.Stamp // a file that is not the session's must not exist
	if own {
		expect = s.stamp
	}
	var st miku.Stamp
	if overwrite {
		st, err = l.Write(f)
	} else {
		st, err = l.WriteIfUnchanged(f, expect)
		// A file the session has not written yet (a new conversation's
		// name, NewConversation) that exists is someone else's.
		if expect.IsZero() && errors.Is(err, miku.ErrChanged) {
			err = fmt.Errorf("session: %s %w", path, ErrExists)
		}
	}
	if err != nil {
		return err
	}
	if held == nil {
		if err := l.Unlock(); err != nil {
			return err
		}
	}
	s.file, s.created, s.stamp = path, created, st
	return nil
}

// samePath reports whether a and b name the same file path (compared
// absolute and cleaned, so "s.miku" and "./s.miku" agree).
func samePath(a, b string) bool {
	if a == b {
		return true
	}
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == ab
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
	return s.LoadCtx(context.Background(), path, force, nil)
}

// LoadCtx is Load whose compression build (a file saved with a GRC rank)
// reports blocks done to progress and stops when ctx is cancelled, leaving
// the session as it was.
func (s *Session) LoadCtx(ctx context.Context, path string, force bool, progress func(done, total int)) (notes []string, err error) {
	f, stamp, err := miku.ReadStamped(path)
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
	skip, required := f.Unknown(sectionConversation, sectionCOG, sectionCOGProfile, sectionCOGServed)
	if len(required) > 0 {
		return nil, fmt.Errorf("%s: needs sections this version cannot read: %v — update ISAGI", path, required)
	}
	var carry []miku.Section
	for _, name := range skip {
		sec, _ := f.Section(name)
		carry = append(carry, cloneSection(sec))
		notes = append(notes, fmt.Sprintf("section %q is not one this version knows: it is not used, and is kept in the file unchanged", name))
	}
	sec, ok := f.Section(sectionConversation)
	if !ok {
		return nil, fmt.Errorf("%s: no conversation section", path)
	}
	var conv savedConv
	if err := json.Unmarshal(sec.Data, &conv); err != nil {
		return nil, fmt.Errorf("%s: conversation section: %w", path, err)
	}
	var set Settings
	if len(f.Header.Knobs) > 0 {
		if err := json.Unmarshal(f.Header.Knobs, &set); err != nil {
			return nil, fmt.Errorf("%s: knobs: %w", path, err)
		}
		if err := s.applyCtx(ctx, set, progress); err != nil {
			return nil, fmt.Errorf("%s: knobs: %w", path, err)
		}
		if evicting(set.KVKeep) {
			// A file keeps the conversation's text, not its KV cache.
			notes = append(notes, fmt.Sprintf("this session evicts KV entries (kv_keep %g, %s): what its cache had dropped is gone, and the conversation is read again at the next turn, the scorer choosing anew",
				set.KVKeep, scorerName(set.KVScorer)))
		}
	}
	// The cache starts empty and the conversation is recomputed at the
	// next turn; until then ContextUsed counts the conversation itself.
	s.resetCache(s.set.Seed)
	s.conv.Restore(conversation.Record{Messages: conv.Messages, Text: conv.Text, Parts: conv.Parts})
	s.lastServed, s.lastInput = nil, ""
	notes = append(notes, s.loadServed(f)...)
	s.file, s.created, s.stamp, s.carry = path, f.Header.Created, stamp, carry
	notes = append(notes, s.loadCOG(f, f.Header.Model.SHA256 == sum)...)
	return notes, nil
}

// Transcript is the conversation so far, for display: chat messages, or in
// completion mode the user's inputs and the model's continuations
// (RolePrompt, RoleContinuation) — the running text as one "text" entry
// for a file saved before they were kept.
func (s *Session) Transcript() []chat.Message { return s.conv.Transcript() }

// SaveFile is Save with the session's app version and the current time
// (the TUI's /save, ctrl+s and autosave): errors.Is(err, ErrExists) means
// path is someone else's file, errors.Is(err, miku.ErrChanged) that the
// session's own file was saved by another process since this one loaded
// or saved it; SaveFileOverwrite saves anyway.
func (s *Session) SaveFile(path string) error {
	return s.Save(path, s.appVersion, time.Now())
}

// SaveFileOverwrite is SaveOverwrite with the session's app version and
// the current time (the TUI's /save! FILE).
func (s *Session) SaveFileOverwrite(path string) error {
	return s.SaveOverwrite(path, s.appVersion, time.Now())
}

// LoadFile is Load (the TUI's /load) followed by Notes: the TUI attaches
// no profile after a load, so what the session cannot use is told at once.
func (s *Session) LoadFile(path string, force bool) ([]string, error) {
	return s.LoadFileCtx(context.Background(), path, force, nil)
}

// LoadFileCtx is LoadCtx (the TUI's /load, which shows the build's
// progress and cancels it with esc) followed by Notes, as LoadFile.
func (s *Session) LoadFileCtx(ctx context.Context, path string, force bool, progress func(done, total int)) ([]string, error) {
	notes, err := s.LoadCtx(ctx, path, force, progress)
	if err != nil {
		return nil, err
	}
	return append(notes, s.Notes()...), nil
}
