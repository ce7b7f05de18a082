package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeHub serves one repository, org/repo, with the Hub's endpoints:
// GET /api/models/org/repo, POST /api/models/org/repo/paths-info/main and
// GET /org/repo/resolve/main/FILE.
type fakeHub struct {
	t     *testing.T
	files map[string][]byte
	// lfs: serve an LFS sha256 (else only a git blob id).
	lfs bool
	// shaOverride replaces the sha256 the API reports.
	shaOverride string
	// serve, when set, answers resolve requests instead of
	// http.ServeContent; call is the 1-based resolve request number.
	serve func(w http.ResponseWriter, r *http.Request, data []byte, call int)

	mu       sync.Mutex
	ranges   []string // Range header of each resolve request
	sent     []int64  // body bytes written per resolve request
	apiCalls []string
}

func newFakeHub(t *testing.T, files map[string][]byte) (*fakeHub, *Client) {
	h := &fakeHub{t: t, files: files, lfs: true}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, &Client{BaseURL: srv.URL, HTTP: srv.Client(), ProgressInterval: time.Millisecond}
}

type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) Flush() { c.ResponseWriter.(http.Flusher).Flush() }

// log returns copies of the Range headers and byte counts of the resolve
// requests, once every handler has finished.
func (h *fakeHub) log(t *testing.T) (ranges []string, sent []int64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		h.mu.Lock()
		ranges, sent = append([]string(nil), h.ranges...), append([]int64(nil), h.sent...)
		h.mu.Unlock()
		if len(ranges) == len(sent) || time.Now().After(deadline) {
			return ranges, sent
		}
		time.Sleep(time.Millisecond)
	}
}

func (h *fakeHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.apiCalls = append(h.apiCalls, r.Method+" "+r.URL.Path)
	h.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/models/org/repo":
		var sib []map[string]string
		for name := range h.files {
			sib = append(sib, map[string]string{"rfilename": name})
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "org/repo", "siblings": sib})
	case r.Method == http.MethodPost && r.URL.Path == "/api/models/org/repo/paths-info/main":
		var req struct {
			Paths []string `json:"paths"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out := []map[string]any{}
		for _, p := range req.Paths {
			data, ok := h.files[p]
			if !ok {
				continue
			}
			sum := sha256.Sum256(data)
			g := sha1.New()
			fmt.Fprintf(g, "blob %d\x00", len(data))
			g.Write(data)
			e := map[string]any{"type": "file", "path": p, "size": len(data), "oid": hex.EncodeToString(g.Sum(nil))}
			if h.lfs {
				sha := hex.EncodeToString(sum[:])
				if h.shaOverride != "" {
					sha = h.shaOverride
				}
				e["oid"] = "0123456789abcdef0123456789abcdef01234567" // pointer blob id
				e["lfs"] = map[string]any{"oid": sha, "size": len(data), "pointerSize": 134}
			}
			out = append(out, e)
		}
		json.NewEncoder(w).Encode(out)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/org/repo/resolve/main/"):
		name := strings.TrimPrefix(r.URL.Path, "/org/repo/resolve/main/")
		data, ok := h.files[name]
		if !ok {
			http.Error(w, "Entry not found", http.StatusNotFound)
			return
		}
		h.mu.Lock()
		h.ranges = append(h.ranges, r.Header.Get("Range"))
		call := len(h.ranges)
		h.mu.Unlock()
		cw := &countingWriter{ResponseWriter: w}
		defer func() {
			h.mu.Lock()
			h.sent = append(h.sent, cw.n)
			h.mu.Unlock()
		}()
		if h.serve != nil {
			h.serve(cw, r, data, call)
			return
		}
		http.ServeContent(cw, r, name, time.Time{}, strings.NewReader(string(data)))
	default:
		http.Error(w, `{"error":"Repository not found"}`, http.StatusNotFound)
	}
}

// model is deterministic pseudo-random content.
func model(n int) []byte {
	b := make([]byte, n)
	x := uint32(12345)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

const fileName = "tiny-Q8_0.gguf"

func ref() Ref { return Ref{Org: "org", Repo: "repo", File: fileName} }

// serveHalfThenAbort announces the full length, sends half and drops the
// connection.
func serveHalfThenAbort(w http.ResponseWriter, r *http.Request, data []byte, call int) {
	w.Header().Set("Content-Length", fmt.Sprint(len(data)))
	w.WriteHeader(http.StatusOK)
	w.Write(data[:len(data)/2])
	w.(http.Flusher).Flush()
	panic(http.ErrAbortHandler)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustNotExist(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s should not exist (stat: %v)", p, err)
	}
}

func TestPullResumesAfterInterruptedBody(t *testing.T) {
	data := model(300_000)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	dir := t.TempDir()
	dest := filepath.Join(dir, fileName)

	h.serve = serveHalfThenAbort
	_, err := c.Pull(context.Background(), ref(), dir, nil)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("first pull: want ErrInterrupted, got %v", err)
	}
	mustNotExist(t, dest)
	part := mustRead(t, dest+PartSuffix)
	if len(part) != len(data)/2 || string(part) != string(data[:len(data)/2]) {
		t.Fatalf(".part holds %d bytes, want the first %d", len(part), len(data)/2)
	}

	h.serve = nil
	var last Progress
	res, err := c.Pull(context.Background(), ref(), dir, func(p Progress) { last = p })
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if got := mustRead(t, dest); string(got) != string(data) {
		t.Fatal("resumed file differs from the original")
	}
	mustNotExist(t, dest+PartSuffix)
	if res.Resumed != int64(len(data)/2) || res.Path != dest || res.AlreadyPresent {
		t.Fatalf("result %+v", res)
	}
	ranges, sent := h.log(t)
	if want := fmt.Sprintf("bytes=%d-", len(data)/2); len(ranges) != 2 || ranges[0] != "" || ranges[1] != want {
		t.Fatalf("Range headers %q, want [\"\" %q]", ranges, want)
	}
	if len(sent) != 2 || sent[1] != int64(len(data)-len(data)/2) {
		t.Fatalf("requests sent %v bytes, want only the remaining %d the second time", sent, len(data)-len(data)/2)
	}
	if !last.Final || last.Done != int64(len(data)) || last.Total != int64(len(data)) || last.Resumed != int64(len(data)/2) {
		t.Fatalf("last progress %+v", last)
	}

	// Pulling again finds it installed and downloads nothing.
	res, err = c.Pull(context.Background(), ref(), dir, nil)
	if ranges, _ := h.log(t); err != nil || !res.AlreadyPresent || len(ranges) != 2 {
		t.Fatalf("second pull: %+v, %v, %d downloads", res, err, len(ranges))
	}
}

func TestPullBadChecksum(t *testing.T) {
	data := model(50_000)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	h.shaOverride = strings.Repeat("ab", 32)
	dir := t.TempDir()
	_, err := c.Pull(context.Background(), ref(), dir, nil)
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "checksum mismatch") || !strings.Contains(err.Error(), h.shaOverride) {
		t.Fatalf("want a checksum mismatch naming the expected digest, got %v", err)
	}
	// Documented: the bad download is not renamed into place, and its .part
	// is removed so that the next pull starts afresh rather than resuming bad bytes.
	mustNotExist(t, filepath.Join(dir, fileName))
	mustNotExist(t, filepath.Join(dir, fileName+PartSuffix))
}

func TestPullVerifiesGitBlobIDForNonLFSFiles(t *testing.T) {
	data := model(1000)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	h.lfs = false
	dir := t.TempDir()
	if _, err := c.Pull(context.Background(), ref(), dir, nil); err != nil {
		t.Fatal(err)
	}
	// A corrupting server is caught by the blob id too.
	os.Remove(filepath.Join(dir, fileName))
	h.serve = func(w http.ResponseWriter, r *http.Request, data []byte, call int) {
		bad := append([]byte(nil), data...)
		bad[10] ^= 1
		w.Write(bad)
	}
	if _, err := c.Pull(context.Background(), ref(), dir, nil); !errors.Is(err, ErrChecksum) {
		t.Fatalf("corrupted non-LFS file: want ErrChecksum, got %v", err)
	}
}

func TestPullNotFound(t *testing.T) {
	_, c := newFakeHub(t, map[string][]byte{fileName: model(10)})
	dir := t.TempDir()

	_, err := c.Pull(context.Background(), Ref{Org: "nobody", Repo: "nothing"}, dir, nil)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nobody/nothing") || !strings.Contains(err.Error(), "not") {
		t.Fatalf("unknown repo: got %v", err)
	}
	_, err = c.Pull(context.Background(), Ref{Org: "nobody", Repo: "nothing", File: "x.gguf"}, dir, nil)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nobody/nothing") {
		t.Fatalf("unknown repo with file: got %v", err)
	}
	_, err = c.Pull(context.Background(), Ref{Org: "org", Repo: "repo", File: "missing-Q4_K_M.gguf"}, dir, nil)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "missing-Q4_K_M.gguf") || !strings.Contains(err.Error(), "org/repo") {
		t.Fatalf("unknown file: got %v", err)
	}
	mustNotExist(t, filepath.Join(dir, "missing-Q4_K_M.gguf"+PartSuffix))
}

func TestPullDownload404(t *testing.T) {
	h, c := newFakeHub(t, map[string][]byte{fileName: model(10)})
	h.serve = func(w http.ResponseWriter, r *http.Request, data []byte, call int) {
		http.Error(w, "Entry not found", http.StatusNotFound)
	}
	_, err := c.Pull(context.Background(), ref(), t.TempDir(), nil)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), fileName) || !strings.Contains(err.Error(), "org/repo") {
		t.Fatalf("want not found naming file and repo, got %v", err)
	}
}

func TestPullTruncatedBody(t *testing.T) {
	data := model(100_000)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	const short = 30_000
	h.serve = func(w http.ResponseWriter, r *http.Request, data []byte, call int) {
		// Promise everything, send less, end the handler: net/http closes
		// the connection and the client sees a short body.
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data[:short])
	}
	dir := t.TempDir()
	_, err := c.Pull(context.Background(), ref(), dir, nil)
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), fmt.Sprint(short)) {
		t.Fatalf("want ErrInterrupted after %d bytes, got %v", short, err)
	}
	mustNotExist(t, filepath.Join(dir, fileName))
	if got := mustRead(t, filepath.Join(dir, fileName+PartSuffix)); len(got) != short {
		t.Fatalf(".part holds %d bytes, want %d", len(got), short)
	}
	h.serve = nil
	if _, err := c.Pull(context.Background(), ref(), dir, nil); err != nil {
		t.Fatalf("resume after truncation: %v", err)
	}
	if got := mustRead(t, filepath.Join(dir, fileName)); string(got) != string(data) {
		t.Fatal("file differs after resume")
	}
	if ranges, _ := h.log(t); len(ranges) != 2 || ranges[1] != fmt.Sprintf("bytes=%d-", short) {
		t.Fatalf("resume asked for %q", ranges)
	}
}

func TestPullServerIgnoringRangeRestarts(t *testing.T) {
	data := model(80_000)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	h.serve = func(w http.ResponseWriter, r *http.Request, data []byte, call int) {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.WriteHeader(http.StatusOK) // whatever Range says
		w.Write(data)
	}
	dir := t.TempDir()
	// A stale .part whose bytes are wrong: appending to it would fail the
	// checksum, so the file only comes out right if Pull restarts.
	if err := os.WriteFile(filepath.Join(dir, fileName+PartSuffix), make([]byte, 20_000), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := c.Pull(context.Background(), ref(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, filepath.Join(dir, fileName)); string(got) != string(data) {
		t.Fatal("file differs after a 200 answer to a range request")
	}
	if ranges, _ := h.log(t); len(ranges) != 1 || ranges[0] != "bytes=20000-" {
		t.Fatalf("Pull did not try to resume: Range %q", ranges)
	}
	if res.Resumed != 20_000 {
		t.Fatalf("Resumed = %d (bytes found on disk)", res.Resumed)
	}
}

func TestPullCancelKeepsPart(t *testing.T) {
	data := model(200_000)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	h.serve = func(w http.ResponseWriter, r *http.Request, data []byte, call int) {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data[:50_000])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	var last Progress
	_, err := c.Pull(ctx, ref(), dir, func(p Progress) {
		last = p
		if p.Done > 0 {
			cancel() // as ctrl+c would
		}
	})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrInterrupted) {
		t.Fatalf("want an interrupted, cancelled error, got %v", err)
	}
	got := mustRead(t, filepath.Join(dir, fileName+PartSuffix))
	if len(got) == 0 || int64(len(got)) != last.Done || string(got) != string(data[:len(got)]) {
		t.Fatalf(".part holds %d bytes, want the %d received", len(got), last.Done)
	}
	if !last.Final {
		t.Fatalf("no final progress report: %+v", last)
	}
	mustNotExist(t, filepath.Join(dir, fileName))
}

func TestPullPicksGGUFFromListing(t *testing.T) {
	files := map[string][]byte{
		"README.md":                    []byte("hi"),
		"tiny-Q2_K.gguf":               model(10),
		"tiny-Q4_K_M.gguf":             model(20),
		"tiny-Q8_0.gguf":               model(30),
		"tiny-f16-00001-of-00002.gguf": model(5),
		"mmproj-tiny-Q4_K_M.gguf":      model(5),
	}
	h, c := newFakeHub(t, files)
	dir := t.TempDir()
	res, err := c.Pull(context.Background(), Ref{Org: "org", Repo: "repo"}, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ref.File != "tiny-Q4_K_M.gguf" || res.Path != filepath.Join(dir, "tiny-Q4_K_M.gguf") {
		t.Fatalf("picked %+v", res)
	}
	if got := mustRead(t, res.Path); string(got) != string(files["tiny-Q4_K_M.gguf"]) {
		t.Fatal("wrong content")
	}
	// A quantisation tag picks by tag.
	res, err = c.Pull(context.Background(), Ref{Org: "org", Repo: "repo", File: "q8_0"}, dir, nil)
	if err != nil || res.Ref.File != "tiny-Q8_0.gguf" {
		t.Fatalf("tag q8_0: %+v, %v", res, err)
	}
	h.mu.Lock()
	first := h.apiCalls[0]
	h.mu.Unlock()
	if first != "GET /api/models/org/repo" {
		t.Fatalf("first call %q, want the repo listing", first)
	}
}

func TestPickFile(t *testing.T) {
	r := Ref{Org: "o", Repo: "r"}
	for _, tc := range []struct {
		files []string
		tag   string
		want  string
		err   error
	}{
		{[]string{"a-Q8_0.gguf", "a-Q4_K_M.gguf", "a-Q4_K_S.gguf"}, "", "a-Q4_K_M.gguf", nil},
		{[]string{"a-Q8_0.gguf", "a-Q4_K_S.gguf"}, "", "a-Q8_0.gguf", nil},
		{[]string{"a.q8_0.gguf", "a.f16.gguf"}, "", "a.q8_0.gguf", nil},
		{[]string{"only.gguf", "README.md"}, "", "only.gguf", nil},
		{[]string{"a-Q5_K_M.gguf", "a-Q6_K.gguf"}, "", "", ErrChooseFile},
		{[]string{"a-Q4_K_M.gguf", "a-Q4_K_S.gguf"}, "Q4_K", "", ErrNotFound},
		{[]string{"a-Q4_K_M.gguf", "a-Q4_K_S.gguf"}, "q4_k_s", "a-Q4_K_S.gguf", nil},
		{[]string{"README.md", "model.safetensors"}, "", "", ErrNotFound},
		{[]string{"big-Q4_K_M-00001-of-00002.gguf", "big-Q4_K_M-00002-of-00002.gguf"}, "", "", ErrNotFound},
	} {
		r.File = tc.tag
		got, err := PickFile(r, tc.files)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("PickFile(%q, %v) = %q, %v; want %q, %v", tc.tag, tc.files, got, err, tc.want, tc.err)
		}
	}
	_, err := PickFile(r, []string{"a-Q5_K_M.gguf", "a-Q6_K.gguf"})
	if err == nil || !strings.Contains(err.Error(), "a-Q5_K_M.gguf") || !strings.Contains(err.Error(), "a-Q6_K.gguf") {
		t.Fatalf("the choose-a-file error should list the files, got %v", err)
	}
}

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Ref
	}{
		{"smollm2-135m-instruct", Ref{"bartowski", "SmolLM2-135M-Instruct-GGUF", "SmolLM2-135M-Instruct-Q8_0.gguf"}},
		{"Qwen2.5-0.5B-Instruct", Ref{"Qwen", "Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q8_0.gguf"}},
		{"llama-3.2-1b-instruct", Ref{"bartowski", "Llama-3.2-1B-Instruct-GGUF", "Llama-3.2-1B-Instruct-Q4_K_M.gguf"}},
		{"hf.co/org/repo", Ref{"org", "repo", ""}},
		{"hf.co/org/repo:Q4_K_M", Ref{"org", "repo", "Q4_K_M"}},
		{"huggingface.co/org/repo:sub/x.gguf", Ref{"org", "repo", "sub/x.gguf"}},
		{"https://huggingface.co/org/re.po_1:x.gguf", Ref{"org", "re.po_1", "x.gguf"}},
		{"org/repo:x.gguf", Ref{"org", "repo", "x.gguf"}},
	} {
		got, err := ParseRef(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "nonsense", "hf.co/org", "hf.co/org/repo:../../etc/passwd", "hf.co/or g/repo", "hf.co/org/repo:/abs.gguf"} {
		if r, err := ParseRef(bad); err == nil {
			t.Errorf("ParseRef(%q) = %+v, want an error", bad, r)
		}
	}
	if _, err := ParseRef("nonsense"); err == nil || !strings.Contains(err.Error(), DefaultShortName) {
		t.Errorf("a bad name should list the short names, got %v", err)
	}
	if r, _ := ParseRef("hf.co/org/repo:x.gguf"); r.String() != "hf.co/org/repo:x.gguf" {
		t.Errorf("String() = %q", r.String())
	}
	// ShortNames hands out copies.
	s := ShortNames()
	s[0].Ref.File = "changed"
	if r, _ := Lookup(DefaultShortName); r.File == "changed" {
		t.Fatal("ShortNames exposes shared state")
	}
}

func TestOfflineError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	c := &Client{BaseURL: "http://" + addr}
	_, err = c.Pull(context.Background(), ref(), t.TempDir(), nil)
	var off *OfflineError
	if !errors.As(err, &off) || !errors.Is(err, ErrOffline) {
		t.Fatalf("want an *OfflineError, got %T %v", err, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "offline") || !strings.Contains(msg, "isagi --model /path/to/model.gguf") {
		t.Fatalf("message should say offline and how to use a local file: %q", msg)
	}
	if strings.Count(msg, ". ") != 0 || strings.Contains(msg, "\n") || !strings.HasSuffix(msg, ".") {
		t.Fatalf("message should be one sentence: %q", msg)
	}
}

// installed pulls data once, as fileName, and returns its path.
func installed(t *testing.T, c *Client, dir string) string {
	t.Helper()
	if _, err := c.Pull(context.Background(), ref(), dir, nil); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, fileName)
}

// flipByte damages the file at p without changing its size.
func flipByte(t *testing.T, p string, at int) []byte {
	t.Helper()
	b := mustRead(t, p)
	b[at] ^= 0x40
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestPullInstalledIsVerified: pulling a file that is installed intact
// hashes it (progress marked Checking) and downloads nothing.
func TestPullInstalledIsVerified(t *testing.T) {
	data := model(3 << 20)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	dir := t.TempDir()
	installed(t, c, dir)

	var reports []Progress
	res, err := c.Pull(context.Background(), ref(), dir, func(p Progress) { reports = append(reports, p) })
	if err != nil || !res.AlreadyPresent || res.Mismatch != "" || res.SHA256 != sha256Hex(data) {
		t.Fatalf("second pull: %+v, %v", res, err)
	}
	if ranges, _ := h.log(t); len(ranges) != 1 {
		t.Fatalf("the intact installed file was downloaded again: %d requests for it", len(ranges))
	}
	if len(reports) == 0 {
		t.Fatal("no progress while the installed file was hashed")
	}
	last := reports[len(reports)-1]
	if !last.Final || !last.Checking || last.Done != int64(len(data)) || last.Total != int64(len(data)) {
		t.Fatalf("last progress %+v, want a final Checking report of all %d bytes", last, len(data))
	}
}

// TestPullInstalledDamagedIsReplaced: an installed file of the right size
// with one flipped byte is caught by its sha256 and downloaded again from
// byte 0, replacing it.
func TestPullInstalledDamagedIsReplaced(t *testing.T) {
	data := model(200_000)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	dir := t.TempDir()
	dest := installed(t, c, dir)
	bad := flipByte(t, dest, 123_456)

	res, err := c.Pull(context.Background(), ref(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "its sha256 is " + sha256Hex(bad) + ", the Hub lists " + sha256Hex(data)
	if res.AlreadyPresent || res.Mismatch != want || res.Resumed != 0 {
		t.Fatalf("result %+v, want Mismatch %q", res, want)
	}
	if got := mustRead(t, dest); string(got) != string(data) {
		t.Fatal("the damaged file was not replaced by the Hub's")
	}
	mustNotExist(t, dest+PartSuffix)
	ranges, sent := h.log(t)
	if len(ranges) != 2 || ranges[1] != "" || sent[1] != int64(len(data)) {
		t.Fatalf("re-download: Range %q, sent %v; want a whole fresh download", ranges, sent)
	}
	// Now intact: the next pull downloads nothing.
	if res, err := c.Pull(context.Background(), ref(), dir, nil); err != nil || !res.AlreadyPresent {
		t.Fatalf("pull after the repair: %+v, %v", res, err)
	}
	if ranges, _ := h.log(t); len(ranges) != 2 {
		t.Fatalf("%d downloads, want 2", len(ranges))
	}
}

// TestPullInstalledDamagedNonLFS: without an LFS sha256 the installed file
// is checked by its git blob id.
func TestPullInstalledDamagedNonLFS(t *testing.T) {
	data := model(5000)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	h.lfs = false
	dir := t.TempDir()
	dest := installed(t, c, dir)
	flipByte(t, dest, 0)
	res, err := c.Pull(context.Background(), ref(), dir, nil)
	if err != nil || !strings.HasPrefix(res.Mismatch, "its git blob id is ") || string(mustRead(t, dest)) != string(data) {
		t.Fatalf("result %+v, %v", res, err)
	}
}

// TestPullInstalledDamagedDownloadFails: when the new download fails the
// error says the installed file does not match, the old file stays, and
// the next pull resumes the new download's .part.
func TestPullInstalledDamagedDownloadFails(t *testing.T) {
	data := model(300_000)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	dir := t.TempDir()
	dest := installed(t, c, dir)
	bad := flipByte(t, dest, 7)

	h.serve = serveHalfThenAbort
	_, err := c.Pull(context.Background(), ref(), dir, nil)
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "the installed "+dest+" does not match the Hub's copy (its sha256 is "+sha256Hex(bad)) {
		t.Fatalf("got %v", err)
	}
	if got := mustRead(t, dest); string(got) != string(bad) {
		t.Fatal("the installed file changed although no verified copy replaced it")
	}
	h.serve = nil
	res, err := c.Pull(context.Background(), ref(), dir, nil)
	if err != nil || res.Mismatch == "" || res.Resumed != int64(len(data)/2) || string(mustRead(t, dest)) != string(data) {
		t.Fatalf("resumed re-download: %+v, %v", res, err)
	}
	if ranges, _ := h.log(t); len(ranges) != 3 || ranges[2] != fmt.Sprintf("bytes=%d-", len(data)/2) {
		t.Fatalf("Range headers %q", ranges)
	}
}

// TestPullCompleteDamagedPartStartsOver: a .part of the full size but the
// wrong bytes has nothing left to fetch; it is discarded and the file
// downloaded afresh instead of failing the checksum on every pull.
func TestPullCompleteDamagedPartStartsOver(t *testing.T) {
	data := model(60_000)
	h, c := newFakeHub(t, map[string][]byte{fileName: data})
	dir := t.TempDir()
	part := filepath.Join(dir, fileName+PartSuffix)
	bad := append([]byte(nil), data...)
	bad[100] ^= 1
	if err := os.WriteFile(part, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := c.Pull(context.Background(), ref(), dir, nil)
	if err != nil || res.Resumed != 0 || string(mustRead(t, filepath.Join(dir, fileName))) != string(data) {
		t.Fatalf("result %+v, %v", res, err)
	}
	if ranges, _ := h.log(t); len(ranges) != 1 || ranges[0] != "" {
		t.Fatalf("Range headers %q, want one fresh download", ranges)
	}
	mustNotExist(t, part)
}
