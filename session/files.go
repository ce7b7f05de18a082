package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/conversation"
	"github.com/isagi-lab/isagi/internal/jsonwords"
	"github.com/isagi-lab/isagi/miku"
)

// Files is the persistence part of a Session: the .miku file it was
// loaded from or last saved to.
type Files struct {
	s       *Session
	file    string     // the .miku file loaded or last saved
	created time.Time  // that file's creation time
	stamp   miku.Stamp // that file's content as loaded or last saved: a save over it checks it is unchanged
	// carry are the file's sections this build does not know (a newer
	// ISAGI's), saved back as read.
	carry []miku.Section
}

// newFiles is the persistence part of s, with no file yet.
func newFiles(s *Session) *Files { return &Files{s: s} }

// ErrOtherModel is returned by Load for a session saved with another model.
var ErrOtherModel = errors.New("session was saved with another model")

// sectionConversation is the .miku section holding the conversation.
const sectionConversation = "conversation"

// sectionTree is the .miku section holding the conversation tree (chat
// mode): every branch, the one in use and how each reply was made. The
// conversation section still holds the branch in use as messages, which
// is what a reader that does not know the tree shows.
const sectionTree = "conversation.tree"

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

// ErrExists is returned by Save for a file that exists but that this
// session neither loaded nor saved: saving would throw away whatever it
// holds. SaveOverwrite saves over it when the user says so.
var ErrExists = errors.New("exists and is not this session's file")

// SaveOptions say how Files.Save writes.
type SaveOptions struct {
	// Overwrite writes over whatever file is at the path (the TUI's /save!
	// after the user confirmed).
	Overwrite bool
	// Lock is the lock on the path that the caller holds: isagi run
	// --session keeps it from load to save, so that concurrent runs on
	// one file take turns instead of overwriting each other. nil: Save
	// takes the lock itself, waiting up to miku.LockWait.
	Lock *miku.FileLock
	// AppVersion is recorded in the file ("": the session's, from Options).
	AppVersion string
	// Now stamps the file (Updated; Created too for a new file); zero is
	// the current time.
	Now time.Time
}

// Save writes the conversation (every branch), the knobs and the living
// state to a .miku file, atomically: an interrupted save leaves the
// previous file as it was.
//
// Save never discards what someone else saved. Over the session's own
// file (loaded or last saved) it writes only if the file is still as the
// session left it; if another process (another TUI, an isagi run
// --session) has saved it since, it fails with an error wrapping
// miku.ErrChanged. A file that exists but is not the session's is refused
// with ErrExists. Either way nothing is written; o.Overwrite writes
// anyway. Without o.Lock it waits up to miku.LockWait (or until ctx ends)
// for a concurrent save of the same file (error wrapping miku.ErrLocked).
func (fl *Files) Save(ctx context.Context, path string, o SaveOptions) error {
	if o.AppVersion == "" {
		o.AppVersion = fl.s.appVersion
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	return fl.save(ctx, path, o.AppVersion, o.Now, o.Overwrite, o.Lock)
}

func (fl *Files) save(ctx context.Context, path, appVersion string, now time.Time, overwrite bool, held *miku.FileLock) error {
	s := fl.s
	ref, err := s.pr.Ref()
	if err != nil {
		return err
	}
	knobs, err := json.Marshal(s.set)
	if err != nil {
		return fmt.Errorf("session: knobs: %w", err)
	}
	conv, err := json.Marshal(savedConversation(s.info.Mode, s.cv.snapshot()))
	if err != nil {
		return fmt.Errorf("session: conversation: %w", err)
	}
	own := fl.file != "" && samePath(fl.file, path)
	created := now
	if own && !fl.created.IsZero() {
		created = fl.created
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
	if s.cv.chat() {
		tree, err := json.Marshal(s.cv.savedTree())
		if err != nil {
			return fmt.Errorf("session: conversation tree: %w", err)
		}
		f.Sections = append(f.Sections, miku.Section{Name: sectionTree, Data: tree})
	}
	cs, err := s.mem.sections()
	if err != nil {
		return err
	}
	f.Sections = append(f.Sections, cs...)
	if sv, err := s.mem.servedSection(); err != nil {
		return err
	} else if sv != nil {
		f.Sections = append(f.Sections, *sv)
	}
	// Sections this build does not know go back as they came: a newer
	// ISAGI's state survives a turn taken here.
	f.Sections = append(f.Sections, fl.carry...)
	l := held
	if l == nil {
		ctx, cancel := context.WithTimeoutCause(ctx, miku.LockWait,
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
		expect = fl.stamp
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
	fl.file, fl.created, fl.stamp = path, created, st
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

// Path is the session file this conversation was loaded from or last
// saved to ("" if none): the TUI autosaves to it after every turn.
func (fl *Files) Path() string { return fl.file }

// LoadOptions say how Files.Load reads.
type LoadOptions struct {
	// Force loads a file saved with another model: the conversation and
	// knobs load, the model-bound state does not (ErrOtherModel without it).
	Force bool
	// Progress is told the blocks done of a compression build (a file
	// saved with a GRC rank not built yet); nil tells no one.
	Progress func(done, total int)
}

// Load restores the conversation (every branch), the knobs and the living
// state of a .miku file into the session. A file saved with another model
// is refused (ErrOtherModel) unless o.Force, in which case the
// conversation and knobs load and the model-bound state does not; the
// returned notes say what was skipped, including sections this version
// does not know. Cancelling ctx stops a compression build the knobs ask
// for, leaving the session as it was.
func (fl *Files) Load(ctx context.Context, path string, o LoadOptions) (notes []string, err error) {
	force, progress := o.Force, o.Progress
	s := fl.s
	f, stamp, err := miku.ReadStamped(path)
	if err != nil {
		return nil, err
	}
	sum, err := s.pr.SHA256()
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
	skip, required := f.Unknown(sectionConversation, sectionTree, sectionCOG, sectionCOGProfile, sectionCOGServed)
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
		return nil, fmt.Errorf("%s: the conversation section is damaged: %s", path, jsonwords.String(err))
	}
	// The tree is read before anything changes: a damaged one refuses the
	// file with the session as it was.
	tree, treeNotes, err := loadTree(f, conv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var set Settings
	if len(f.Header.Knobs) > 0 {
		if err := json.Unmarshal(f.Header.Knobs, &set); err != nil {
			return nil, fmt.Errorf("%s: knobs: %s", path, jsonwords.String(err))
		}
		if err := s.checkLoaded(set); err != nil {
			return nil, fmt.Errorf("%s: knobs: %w", path, err)
		}
		if _, ok := s.b.(backend.HeadProjector); set.KVProj && !ok {
			// A layout of the cache, not of the conversation: the file
			// opens, without it.
			set.KVProj = false
			notes = append(notes, fmt.Sprintf("this session stored its KV cache projected (kv_proj on); %s cannot, so it runs without", s.b.Name()))
		}
		if set.Format != "" {
			if _, err := ReadFormat(set.Format); err != nil {
				notes = append(notes, fmt.Sprintf("this session held its replies to %s, and runs without: %v", set.Format, err))
				set.Format = ""
			}
		}
		if set.Steer != "" {
			if err := s.sr.Check(set.Steer); err != nil {
				// A vector is a file outside the session: the
				// conversation opens without the steering it cannot find.
				notes = append(notes, fmt.Sprintf("this session was steered by %s, and runs without it: %v", set.Steer, err))
				set.Steer = ""
			}
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
	notes = append(notes, treeNotes...)
	s.cv.load(conversation.Record{Messages: conv.Messages, Text: conv.Text, Parts: conv.Parts}, tree)
	s.mem.forgetLast()
	notes = append(notes, s.mem.loadServed(f)...)
	fl.file, fl.created, fl.stamp, fl.carry = path, f.Header.Created, stamp, carry
	notes = append(notes, s.mem.load(f, f.Header.Model.SHA256 == sum)...)
	return notes, nil
}

// loadTree is the conversation tree of a file: its tree section, or for a
// file saved before trees were kept (format version 1) its conversation
// as a single branch. A tree section that does not read is an error:
// loading on without it would lose the branches at the next save.
func loadTree(f *miku.File, conv savedConv) (*Tree, []string, error) {
	sec, ok := f.Section(sectionTree)
	if !ok {
		t := NewTree()
		if conv.Mode == ModeChat.String() && !t.follow(branchNodes(conv.Messages), f.Header.Updated) {
			return NewTree(), []string{"the conversation's messages do not alternate between the user and the model: they load without a tree, and the next message starts one"}, nil
		}
		return t, nil, nil
	}
	var st savedTree
	if err := json.Unmarshal(sec.Data, &st); err != nil {
		return nil, nil, fmt.Errorf("the conversation tree section is damaged: %s", jsonwords.String(err))
	}
	t, err := treeFrom(st)
	if err != nil {
		return nil, nil, fmt.Errorf("conversation tree section: %w", err)
	}
	return t, nil, nil
}

// restart forgets the file: the next Save goes to file ("" for none),
// which must not exist yet, and carries no sections of the old one.
func (fl *Files) restart(file string) {
	fl.file, fl.created, fl.stamp, fl.carry = file, time.Time{}, miku.Stamp{}, nil
}
