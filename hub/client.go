package hub

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/isagi-lab/isagi/engine/regfile"
)

// DefaultBaseURL is the Hugging Face Hub.
const DefaultBaseURL = "https://huggingface.co"

// Revision is the branch files are fetched from.
const Revision = "main"

// PartSuffix is appended to a file's name while it downloads.
const PartSuffix = ".part"

var (
	// ErrNotFound: the repository or file does not exist (HTTP 404, or
	// absent from the repository's listing).
	ErrNotFound = errors.New("not found")
	// ErrChecksum: the downloaded bytes do not have the sha256 (or size)
	// the Hub publishes. The .part file is removed, since resuming it would
	// keep the bad bytes.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrInterrupted: the transfer stopped early (connection closed, body
	// shorter than announced, or the context was cancelled). The .part
	// file is kept; pulling again resumes it.
	ErrInterrupted = errors.New("download interrupted")
	// ErrOffline is wrapped by *OfflineError.
	ErrOffline = errors.New("offline")
)

// OfflineError reports that the Hub could not be reached at all (DNS
// failure, connection refused, no route). Its message is one sentence that
// tells the user how to use a local file instead.
type OfflineError struct {
	Host string
	Err  error
}

func (e *OfflineError) Error() string {
	return fmt.Sprintf("you appear to be offline (cannot reach %s), so nothing can be downloaded; to use a GGUF file you already have, run `isagi --model /path/to/model.gguf`.", e.Host)
}

// Unwrap returns ErrOffline and the network error.
func (e *OfflineError) Unwrap() []error { return []error{ErrOffline, e.Err} }

// Client talks to the Hub. The zero Client works: it uses DefaultBaseURL and
// http.DefaultClient.
type Client struct {
	// BaseURL is the Hub's address, without a trailing slash (default
	// DefaultBaseURL).
	BaseURL string
	// HTTP is the client used (default http.DefaultClient). Downloads can
	// take long, so it should not have an overall Timeout.
	HTTP *http.Client
	// Token, when set, is sent as "Authorization: Bearer …" (gated or
	// private repositories; usually $HF_TOKEN).
	Token string
	// UserAgent is sent with every request (default "isagi").
	UserAgent string
	// ProgressInterval is the least time between progress callbacks
	// (default 100ms, i.e. at most 10 Hz). The first and last are always
	// delivered.
	ProgressInterval time.Duration
	// Retries is how many times Pull resumes by itself after an
	// interrupted transfer before giving up (default 0: it returns the
	// error, and pulling again resumes).
	Retries int
}

// NewClient returns a Client for the Hub with an HTTP client that gives up
// on connections and response headers that take too long, but not on long
// downloads.
func NewClient() *Client {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		IdleConnTimeout:       60 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Client{BaseURL: DefaultBaseURL, HTTP: &http.Client{Transport: tr}}
}

func (c *Client) base() string {
	if c.BaseURL == "" {
		return DefaultBaseURL
	}
	return strings.TrimRight(c.BaseURL, "/")
}

func (c *Client) host() string {
	if u, err := url.Parse(c.base()); err == nil && u.Host != "" {
		return u.Host
	}
	return c.base()
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// Progress is reported while a file downloads.
type Progress struct {
	File string
	// Done and Total are bytes; Total is 0 when unknown.
	Done, Total int64
	// Resumed is the bytes that were already on disk when this transfer
	// started.
	Resumed int64
	// Speed is bytes per second over this transfer; ETA the time left at
	// that speed (0 when unknown).
	Speed float64
	ETA   time.Duration
	// Final is set on the last report of a transfer.
	Final bool
	// Checking is set while Pull hashes a file that is already installed
	// (Done and Total count the bytes hashed; nothing is downloaded).
	Checking bool
}

// FileInfo is what the Hub says about one file.
type FileInfo struct {
	Path string
	Size int64
	// SHA256 is the LFS object id (hex), empty for files not in LFS.
	SHA256 string
	// GitOID is the git blob id (sha1 hex), used for files not in LFS.
	GitOID string
}

// Result describes a finished Pull.
type Result struct {
	Ref  Ref    // with File filled in
	Path string // where the file now is
	Size int64
	// SHA256 is the verified digest (hex); empty when the Hub published
	// only a git blob id, which was verified instead.
	SHA256 string
	// Resumed is the bytes taken over from an earlier partial download.
	Resumed int64
	// AlreadyPresent: the file was already installed with the size and
	// digest the Hub lists (SHA256, or the git blob id); nothing was
	// downloaded.
	AlreadyPresent bool
	// Mismatch, when not empty, says why the installed file was replaced:
	// it had the size the Hub lists but not its digest ("its sha256 is …,
	// the Hub lists …"), so it was downloaded again.
	Mismatch string
}

func (c *Client) newRequest(ctx context.Context, method, u string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	ua := c.UserAgent
	if ua == "" {
		ua = "isagi"
	}
	req.Header.Set("User-Agent", ua)
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	return req, nil
}

// do sends req and turns network failures into *OfflineError.
func (c *Client) do(req *http.Request) (*http.Response, error) {
	resp, err := c.http().Do(req)
	if err != nil {
		if req.Context().Err() == nil && isOffline(err) {
			return nil, &OfflineError{Host: c.host(), Err: err}
		}
		return nil, err
	}
	return resp, nil
}

// isOffline reports whether err means the network or host is unreachable,
// as opposed to a failure after a connection was made.
func isOffline(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	for _, e := range []error{syscall.ECONNREFUSED, syscall.ENETUNREACH, syscall.EHOSTUNREACH, syscall.ENETDOWN, syscall.EADDRNOTAVAIL} {
		if errors.Is(err, e) {
			return true
		}
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// statusError turns a non-success response into an error naming what was
// asked for.
func statusError(resp *http.Response, what string) error {
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	detail := strings.TrimSpace(string(msg))
	var j struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(msg, &j) == nil && j.Error != "" {
		detail = j.Error
	}
	if len(detail) > 200 {
		detail = detail[:200] + "…"
	}
	if detail != "" {
		detail = " (" + detail + ")"
	}
	switch resp.StatusCode {
	case http.StatusNotFound:
		return fmt.Errorf("%w: %s does not exist on the Hub (HTTP 404)%s", ErrNotFound, what, detail)
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("access to %s was refused (HTTP %d): it may be gated or private; accept its licence on the Hub and set HF_TOKEN%s", what, resp.StatusCode, detail)
	}
	return fmt.Errorf("%s: the Hub answered %s%s", what, resp.Status, detail)
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func (c *Client) repoAPI(ref Ref) string {
	return c.base() + "/api/models/" + url.PathEscape(ref.Org) + "/" + url.PathEscape(ref.Repo)
}

// ListFiles returns the paths of every file in the repository
// (GET /api/models/ORG/REPO, its "siblings").
func (c *Client) ListFiles(ctx context.Context, ref Ref) ([]string, error) {
	req, err := c.newRequest(ctx, http.MethodGet, c.repoAPI(ref), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(resp, "repository "+ref.RepoID())
	}
	var info struct {
		Siblings []struct {
			RFilename string `json:"rfilename"`
		} `json:"siblings"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 32<<20)).Decode(&info); err != nil {
		return nil, fmt.Errorf("repository %s: bad listing from the Hub: %w", ref.RepoID(), err)
	}
	files := make([]string, 0, len(info.Siblings))
	for _, s := range info.Siblings {
		files = append(files, s.RFilename)
	}
	return files, nil
}

// ResolveFile fills in ref.File when it is empty or a quantisation tag, by
// listing the repository and calling PickFile.
func (c *Client) ResolveFile(ctx context.Context, ref Ref) (Ref, error) {
	if ref.HasFile() {
		return ref, nil
	}
	files, err := c.ListFiles(ctx, ref)
	if err != nil {
		return ref, err
	}
	f, err := PickFile(ref, files)
	if err != nil {
		return ref, err
	}
	ref.File = f
	return ref, nil
}

// Info asks the Hub for a file's size and digests
// (POST /api/models/ORG/REPO/paths-info/main with {"paths": [FILE]}).
func (c *Client) Info(ctx context.Context, ref Ref) (FileInfo, error) {
	body, _ := json.Marshal(map[string]any{"paths": []string{ref.File}, "expand": false})
	u := c.repoAPI(ref) + "/paths-info/" + Revision
	req, err := c.newRequest(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return FileInfo{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.do(req)
	if err != nil {
		return FileInfo{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return FileInfo{}, statusError(resp, "repository "+ref.RepoID())
	}
	var entries []struct {
		Type string `json:"type"`
		Path string `json:"path"`
		Size int64  `json:"size"`
		OID  string `json:"oid"`
		LFS  *struct {
			OID  string `json:"oid"`
			Size int64  `json:"size"`
		} `json:"lfs"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&entries); err != nil {
		return FileInfo{}, fmt.Errorf("%s: bad file information from the Hub: %w", ref, err)
	}
	for _, e := range entries {
		if e.Path != ref.File || (e.Type != "" && e.Type != "file") {
			continue
		}
		fi := FileInfo{Path: e.Path, Size: e.Size, GitOID: strings.ToLower(e.OID)}
		if e.LFS != nil {
			fi.SHA256 = strings.ToLower(strings.TrimPrefix(e.LFS.OID, "sha256:"))
			if e.LFS.Size > 0 {
				fi.Size = e.LFS.Size
			}
		}
		if fi.SHA256 == "" && fi.GitOID == "" {
			return FileInfo{}, fmt.Errorf("%s: the Hub gave no checksum for %s, so it cannot be verified", ref.RepoID(), ref.File)
		}
		return fi, nil
	}
	return FileInfo{}, fmt.Errorf("%w: file %s is not in repository %s", ErrNotFound, ref.File, ref.RepoID())
}

// Pull downloads ref into dir and returns where it is. ref.File may be
// empty or a quantisation tag (see ResolveFile). The file downloads to
// dir/NAME.part: an existing .part is resumed with a Range request (a server
// that ignores the range and answers 200 restarts it cleanly). The result is
// checked against the Hub's sha256 (or git blob id for non-LFS files) and
// size, then fsynced and renamed to dir/NAME, and dir is fsynced.
//
// A file already at dir/NAME with the size the Hub lists is hashed (with
// progress reports marked Checking): if its digest is the Hub's, nothing
// is downloaded and Result.AlreadyPresent is set; if not, Result.Mismatch
// says so and the file is downloaded again (its bytes are never resumed
// from; a .part beside it is, and is verified like any other) and renamed
// over the old one once verified. Should that download fail, the error
// says that the installed file does not match, and the old file is left
// as it was until a pull succeeds. A complete .part without the Hub's
// digest is discarded and the download starts over.
//
// On an interrupted transfer or a cancelled ctx the .part is kept and the
// error wraps ErrInterrupted (and ctx.Err()); pulling again resumes. On a
// checksum mismatch the .part is removed and the error wraps ErrChecksum.
// An unreachable Hub gives an *OfflineError. progress may be nil.
func (c *Client) Pull(ctx context.Context, ref Ref, dir string, progress func(Progress)) (_ *Result, err error) {
	ref, err = c.ResolveFile(ctx, ref)
	if err != nil {
		return nil, err
	}
	info, err := c.Info(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	dest := filepath.Join(dir, path.Base(ref.File))
	res := &Result{Ref: ref, Path: dest, Size: info.Size, SHA256: info.SHA256}
	// serr and cerr, not err: an err declared in this block would be the
	// one the deferred wrap below sees, not the result.
	if st, serr := os.Stat(dest); serr == nil && st.Mode().IsRegular() && st.Size() == info.Size {
		// The right size says nothing about the bytes: a flipped bit, a
		// file replaced by hand or an older revision all keep it.
		why, cerr := c.checkInstalled(ctx, ref, info, dest, progress)
		if cerr != nil {
			return nil, cerr
		}
		if why == "" {
			res.AlreadyPresent = true
			return res, nil
		}
		res.Mismatch = why
		defer func() {
			if err != nil {
				err = fmt.Errorf("the installed %s does not match the Hub's copy (%s), and downloading it again failed: %w", dest, why, err)
			}
		}()
	}
	part := dest + PartSuffix
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer func() {
		if f != nil {
			f.Close()
		}
	}()

	d := &download{c: c, ref: ref, info: info, f: f, progress: progress}
	if err := d.loadPart(); err != nil {
		return nil, err
	}
	res.Resumed = d.done
	for attempt := 0; ; attempt++ {
		err = d.transfer(ctx)
		if err == nil {
			break
		}
		if errors.Is(err, ErrChecksum) {
			f.Close()
			f = nil
			os.Remove(part)
			return nil, err
		}
		f.Sync() // keep what arrived for a later resume
		if !errors.Is(err, ErrInterrupted) || ctx.Err() != nil || attempt >= c.Retries {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w; %s kept, pull again to resume", ErrInterrupted, ctx.Err(), part)
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}

	if err := d.verify(); err != nil {
		f.Close()
		f = nil
		os.Remove(part)
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		f = nil
		return nil, err
	}
	f = nil
	if err := os.Rename(part, dest); err != nil {
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	return res, nil
}

// download is the state of one file's transfer.
type download struct {
	c        *Client
	ref      Ref
	info     FileInfo
	f        *os.File
	progress func(Progress)

	done     int64     // bytes in the .part file
	sha      hash.Hash // sha256 of those bytes
	git      hash.Hash // git blob sha1 of those bytes (header included)
	resumed  int64     // bytes present when the current transfer started
	checking bool      // f is an installed file being hashed, not a .part
}

// reset empties the .part file and the digests.
func (d *download) reset() error {
	if err := d.f.Truncate(0); err != nil {
		return err
	}
	d.done = 0
	return d.resetDigests()
}

// loadPart hashes an existing .part so the download can continue it. A part
// longer than the file is discarded, and so is a complete one that does
// not have the Hub's digest: with nothing left to fetch, resuming it could
// only fail the check again, so the download starts over instead.
func (d *download) loadPart() error {
	st, err := d.f.Stat()
	if err != nil {
		return err
	}
	if err := d.resetDigests(); err != nil {
		return err
	}
	if st.Size() == 0 || st.Size() > d.info.Size {
		return d.reset()
	}
	n, err := io.Copy(io.MultiWriter(d.sha, d.git), d.f)
	if err != nil {
		return err
	}
	d.done = n
	if _, got, want := d.digest(); d.done == d.info.Size && got != want {
		return d.reset()
	}
	return nil
}

func (d *download) resetDigests() error {
	d.sha = sha256.New()
	d.git = sha1.New()
	fmt.Fprintf(d.git, "blob %d\x00", d.info.Size)
	_, err := d.f.Seek(0, io.SeekStart)
	return err
}

func (d *download) report(start time.Time, done int64, final bool) {
	p := Progress{File: d.ref.File, Done: done, Total: d.info.Size, Resumed: d.resumed, Final: final, Checking: d.checking}
	if el := time.Since(start).Seconds(); el > 0 && done > d.resumed {
		p.Speed = float64(done-d.resumed) / el
		if p.Total > done {
			p.ETA = time.Duration(float64(p.Total-done) / p.Speed * float64(time.Second))
		}
	}
	d.progress(p)
}

// reporter calls the progress callback every interval from its own
// goroutine (so a stalled connection still shows), until the returned stop
// function is called; stop waits for it and makes the final report. All
// calls of the callback are serialised.
func (d *download) reporter(start time.Time, done *atomic.Int64) (stop func()) {
	if d.progress == nil {
		return func() {}
	}
	interval := d.c.ProgressInterval
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	d.report(start, done.Load(), false)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				d.report(start, done.Load(), false)
			}
		}
	}()
	return func() {
		close(quit)
		wg.Wait()
		d.report(start, done.Load(), true)
	}
}

// transfer fetches the bytes after d.done.
func (d *download) transfer(ctx context.Context) error {
	part := d.f.Name()
	if d.done == d.info.Size {
		return nil
	}
	u := d.c.base() + "/" + url.PathEscape(d.ref.Org) + "/" + url.PathEscape(d.ref.Repo) + "/resolve/" + Revision + "/" + escapePath(d.ref.File)
	req, err := d.c.newRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if d.done > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", d.done))
	}
	resp, err := d.c.do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w; %s kept, pull again to resume", ErrInterrupted, ctx.Err(), part)
		}
		var off *OfflineError
		if errors.As(err, &off) {
			return err
		}
		return fmt.Errorf("%w: %s: %w", ErrInterrupted, d.ref, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusPartialContent:
		start, err := contentRangeStart(resp.Header.Get("Content-Range"))
		if err != nil || start != d.done {
			return fmt.Errorf("%s: the server answered a range request with an unexpected range %q", d.ref, resp.Header.Get("Content-Range"))
		}
	case http.StatusOK:
		if d.done > 0 {
			// The server ignored the range: start again from byte 0.
			if err := d.reset(); err != nil {
				return err
			}
		}
	case http.StatusRequestedRangeNotSatisfiable:
		// Our part does not fit the file the server has: start afresh.
		if err := d.reset(); err != nil {
			return err
		}
		return fmt.Errorf("%w: %s: the server refused to resume (HTTP 416); the partial file was discarded", ErrInterrupted, d.ref)
	default:
		return statusError(resp, fmt.Sprintf("file %s in repository %s", d.ref.File, d.ref.RepoID()))
	}
	if _, err := d.f.Seek(d.done, io.SeekStart); err != nil {
		return err
	}

	d.resumed = d.done
	var done atomic.Int64
	done.Store(d.done)
	stop := d.reporter(time.Now(), &done)
	defer stop()
	buf := make([]byte, 256<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if d.done+int64(n) > d.info.Size {
				d.reset()
				return fmt.Errorf("%w: %s: the server sent more than the %d bytes the Hub lists; the partial file was discarded", ErrChecksum, d.ref, d.info.Size)
			}
			if _, err := d.f.Write(buf[:n]); err != nil {
				return err
			}
			d.sha.Write(buf[:n])
			d.git.Write(buf[:n])
			d.done += int64(n)
			done.Store(d.done)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w after %d of %d bytes: %w; %s kept, pull again to resume", ErrInterrupted, d.done, d.info.Size, ctx.Err(), part)
			}
			return fmt.Errorf("%w after %d of %d bytes (%v); %s kept, pull again to resume", ErrInterrupted, d.done, d.info.Size, rerr, part)
		}
	}
	if d.done < d.info.Size {
		return fmt.Errorf("%w: the server closed the connection after %d of %d bytes; %s kept, pull again to resume", ErrInterrupted, d.done, d.info.Size, part)
	}
	return nil
}

// verify compares the digests with the Hub's.
func (d *download) verify() error {
	if d.done != d.info.Size {
		return fmt.Errorf("%w: %s: got %d bytes, the Hub lists %d; the partial file was removed, pull again to download it afresh", ErrChecksum, d.ref, d.done, d.info.Size)
	}
	if name, got, want := d.digest(); got != want {
		return fmt.Errorf("%w: %s: %s is %s, the Hub lists %s; the partial file was removed, pull again to download it afresh", ErrChecksum, d.ref, name, got, want)
	}
	return nil
}

// digest is the checksum the Hub publishes for the file, by name: its
// sha256, or for files not in LFS its git blob id; then what the bytes
// so far hash to, and the Hub's value.
func (d *download) digest() (name, got, want string) {
	if d.info.SHA256 != "" {
		return "sha256", hex.EncodeToString(d.sha.Sum(nil)), d.info.SHA256
	}
	return "git blob id", hex.EncodeToString(d.git.Sum(nil)), d.info.GitOID
}

// checkInstalled hashes the installed file at dest, which has the size
// the Hub lists, reporting progress marked Checking. It returns "" when
// the file's digest is the Hub's, else a clause naming both ("its sha256
// is …, the Hub lists …").
func (c *Client) checkInstalled(ctx context.Context, ref Ref, info FileInfo, dest string, progress func(Progress)) (string, error) {
	// regfile.Open: dest may have been replaced by a FIFO since it was
	// stat'ed, and opening that would wait for a writer.
	f, _, err := regfile.Open(dest)
	if err != nil {
		return "", fmt.Errorf("checking the installed %s: %w", dest, err)
	}
	defer f.Close()
	d := &download{c: c, ref: ref, info: info, f: f, progress: progress, checking: true}
	if err := d.resetDigests(); err != nil {
		return "", fmt.Errorf("checking the installed %s: %w", dest, err)
	}
	// Only the digest the Hub publishes: hashing a multi-gigabyte model
	// twice would double the wait.
	var h io.Writer = d.sha
	if info.SHA256 == "" {
		h = d.git
	}
	var done atomic.Int64
	stop := d.reporter(time.Now(), &done)
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			stop()
			return "", fmt.Errorf("checking the installed %s: %w", dest, err)
		}
		n, rerr := f.Read(buf)
		h.Write(buf[:n])
		d.done += int64(n)
		done.Store(d.done)
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			stop()
			return "", fmt.Errorf("checking the installed %s: %w", dest, rerr)
		}
	}
	stop()
	if d.done != info.Size {
		// It changed size while it was read.
		return fmt.Sprintf("it holds %d bytes, the Hub lists %d", d.done, info.Size), nil
	}
	if name, got, want := d.digest(); got != want {
		return fmt.Sprintf("its %s is %s, the Hub lists %s", name, got, want), nil
	}
	return "", nil
}

// contentRangeStart parses the first byte of "bytes START-END/TOTAL".
func contentRangeStart(s string) (int64, error) {
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, fmt.Errorf("bad Content-Range %q", s)
	}
	first, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, fmt.Errorf("bad Content-Range %q", s)
	}
	return strconv.ParseInt(first, 10, 64)
}

// syncDir fsyncs a directory so a rename in it is durable; file systems
// that cannot are not an error.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}
