// Package hub downloads GGUF model files from the Hugging Face Hub.
//
// A model is named by a Ref: "hf.co/ORG/REPO[:FILE]" (also
// "huggingface.co/…" or "https://huggingface.co/…"), or one of a few short
// names such as "smollm2-135m-instruct". FILE may be a file name ending in
// .gguf or a quantisation tag such as "Q4_K_M"; without it the repository's
// GGUF files are listed and a Q4_K_M or Q8_0 one is chosen.
//
// Client.Pull downloads into DIR/FILE.part, resuming with an HTTP Range
// request when a .part file is already there, verifies the sha256 the Hub
// publishes in its LFS metadata, and renames the file into place atomically.
// A file already installed is hashed too, and downloaded again when its
// digest is not the Hub's.
// Tests point Client.BaseURL at an httptest server; nothing in this package
// has mutable package-level state.
package hub

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Ref names a file (or, with File empty, a repository) on the Hub.
type Ref struct {
	Org, Repo string
	// File is a path inside the repository ending in .gguf, a
	// quantisation tag such as "Q4_K_M" to be matched against the
	// repository's files, or "" to let Pull choose.
	File string
}

// RepoID is "ORG/REPO".
func (r Ref) RepoID() string { return r.Org + "/" + r.Repo }

// String is the canonical form "hf.co/ORG/REPO[:FILE]".
func (r Ref) String() string {
	s := "hf.co/" + r.RepoID()
	if r.File != "" {
		s += ":" + r.File
	}
	return s
}

// HasFile reports whether File names a .gguf file rather than a tag or
// nothing.
func (r Ref) HasFile() bool { return strings.HasSuffix(strings.ToLower(r.File), ".gguf") }

// ShortName is a model known by a short name.
type ShortName struct {
	Name  string
	Ref   Ref
	About string
}

// DefaultShortName is the small model offered to newcomers.
const DefaultShortName = "smollm2-135m-instruct"

// ShortNames returns the known short names (a fresh slice each call).
func ShortNames() []ShortName {
	return []ShortName{
		{DefaultShortName, Ref{"bartowski", "SmolLM2-135M-Instruct-GGUF", "SmolLM2-135M-Instruct-Q8_0.gguf"}, "SmolLM2 135M Instruct, Q8_0 (~145 MB): tiny and fast"},
		{"qwen2.5-0.5b-instruct", Ref{"Qwen", "Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q8_0.gguf"}, "Qwen2.5 0.5B Instruct, Q8_0 (~530 MB)"},
		{"llama-3.2-1b-instruct", Ref{"bartowski", "Llama-3.2-1B-Instruct-GGUF", "Llama-3.2-1B-Instruct-Q4_K_M.gguf"}, "Llama 3.2 1B Instruct, Q4_K_M (~810 MB)"},
	}
}

// Lookup returns the Ref of a short name (case-insensitive).
func Lookup(name string) (Ref, bool) {
	for _, s := range ShortNames() {
		if strings.EqualFold(s.Name, name) {
			return s.Ref, true
		}
	}
	return Ref{}, false
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ParseRef parses a short name or "hf.co/ORG/REPO[:FILE]". The host may be
// hf.co, huggingface.co or www.huggingface.co, with or without "https://";
// "ORG/REPO[:FILE]" alone is accepted too.
func ParseRef(s string) (Ref, error) {
	s = strings.TrimSpace(s)
	if r, ok := Lookup(s); ok {
		return r, nil
	}
	orig := s
	for _, p := range []string{"https://", "http://", "hf://"} {
		s = strings.TrimPrefix(s, p)
	}
	for _, h := range []string{"hf.co/", "huggingface.co/", "www.huggingface.co/"} {
		if strings.HasPrefix(strings.ToLower(s), h) {
			s = s[len(h):]
			break
		}
	}
	repo, file, _ := strings.Cut(s, ":")
	org, name, ok := strings.Cut(repo, "/")
	if !ok || !nameRE.MatchString(org) || !nameRE.MatchString(name) {
		return Ref{}, fmt.Errorf("%q is not a model name: want one of %s, or hf.co/ORG/REPO[:FILE.gguf]", orig, strings.Join(shortNameList(), ", "))
	}
	if file != "" {
		clean := path.Clean(file)
		if strings.HasPrefix(clean, "/") || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(file, `\`) {
			return Ref{}, fmt.Errorf("%q: bad file name %q", orig, file)
		}
		file = clean
	}
	return Ref{Org: org, Repo: name, File: file}, nil
}

func shortNameList() []string {
	var out []string
	for _, s := range ShortNames() {
		out = append(out, s.Name)
	}
	return out
}

// ErrChooseFile is wrapped by PickFile's error when the repository holds
// several GGUF files and none is an obvious default: the message lists them.
var ErrChooseFile = errors.New("choose a file")

var splitRE = regexp.MustCompile(`(?i)-\d{5}-of-\d{5}\.gguf$`)

// preferred are the quantisations chosen, in order, when the user names none.
var preferred = []string{"Q4_K_M", "Q8_0"}

// PickFile chooses a file among a repository's files for ref. Only
// single-file .gguf models count (no split "-00001-of-00003" parts and no
// "mmproj" projectors). With a quantisation tag in ref.File the file whose
// name carries that tag is chosen; without one a Q4_K_M file, else a Q8_0
// one, else the only GGUF file. Otherwise the error lists the candidates.
func PickFile(ref Ref, files []string) (string, error) {
	var ggufs []string
	for _, f := range files {
		l := strings.ToLower(f)
		if !strings.HasSuffix(l, ".gguf") || splitRE.MatchString(f) || strings.Contains(path.Base(l), "mmproj") {
			continue
		}
		ggufs = append(ggufs, f)
	}
	sort.Strings(ggufs)
	if len(ggufs) == 0 {
		return "", fmt.Errorf("%w: %s has no single-file GGUF models (files: %s)", ErrNotFound, ref.RepoID(), listOrNone(files))
	}
	if tag := ref.File; tag != "" {
		var hits []string
		for _, f := range ggufs {
			if hasTag(f, tag) {
				hits = append(hits, f)
			}
		}
		switch len(hits) {
		case 1:
			return hits[0], nil
		case 0:
			return "", fmt.Errorf("%w: %s has no GGUF file tagged %s; it has: %s", ErrNotFound, ref.RepoID(), tag, strings.Join(ggufs, ", "))
		}
		return "", fmt.Errorf("%w: %s has several files tagged %s: %s; pull one with hf.co/%s:FILE", ErrChooseFile, ref.RepoID(), tag, strings.Join(hits, ", "), ref.RepoID())
	}
	for _, q := range preferred {
		for _, f := range ggufs {
			if hasTag(f, q) {
				return f, nil
			}
		}
	}
	if len(ggufs) == 1 {
		return ggufs[0], nil
	}
	return "", fmt.Errorf("%w: %s has %d GGUF files and none is Q4_K_M or Q8_0; pull one with hf.co/%s:FILE, where FILE is one of: %s",
		ErrChooseFile, ref.RepoID(), len(ggufs), ref.RepoID(), strings.Join(ggufs, ", "))
}

// hasTag reports whether file name f carries quantisation tag q as a whole
// token: "Model-Q4_K_M.gguf" has Q4_K_M but not Q4_K.
func hasTag(f, q string) bool {
	l, q := strings.ToLower(path.Base(f)), strings.ToLower(q)
	for i := 0; ; {
		j := strings.Index(l[i:], q)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || strings.ContainsRune("-._", rune(l[j-1]))
		end := j + len(q)
		after := end == len(l) || strings.ContainsRune("-.", rune(l[end]))
		if before && after {
			return true
		}
		i = j + 1
	}
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	if len(xs) > 12 {
		return strings.Join(xs[:12], ", ") + fmt.Sprintf(", … (%d in all)", len(xs))
	}
	return strings.Join(xs, ", ")
}
