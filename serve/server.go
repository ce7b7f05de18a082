// Package serve is `isagi serve`: an OpenAI-compatible HTTP server over
// one loaded model (chat completions, completions, models, embeddings,
// streamed as server-sent events or not) that also serves what only ISAGI
// has — per-request Snipe projectors, Safe OGD, GRC rank, living memory
// per session, per-token TEH and the residual stream itself
// (docs/serve.md).
//
// Conversations are computed together on the one model (continuous
// batching, session.Batch): each request holds a conversation (a
// session.Session forked from the loaded one: its own KV cache, knobs and
// hooks), and each step of the batch computes the next token of every
// conversation that is decoding and a chunk of each new prompt, reading
// the weights once for all of them. At most Parallel requests generate at
// once and Queue more wait; beyond that a request gets 429.
package serve

import (
	"container/list"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/isagi-lab/isagi/session"
)

// Config is how the server runs.
type Config struct {
	// ModelID is the model's name in the API (GET /v1/models, "model").
	ModelID string
	// Parallel is how many requests generate at once (computed together,
	// the batch's size); Queue how many more may wait for one of them. 0:
	// 1 and 4×Parallel.
	Parallel, Queue int
	// Chunk is the most prompt tokens of one request a step computes
	// while others decode (0: 32).
	Chunk int
	// Sessions bounds the named sessions kept (least recently used go
	// first); 0: 8.
	Sessions int
	// Ctx is each conversation's context window (0: the loaded session's).
	Ctx int
	// APIKey, when set, is required as "Authorization: Bearer KEY" on
	// every endpoint but /health.
	APIKey string
	// CORSOrigin, when set, is the one web origin (scheme://host[:port])
	// whose pages may call the server from a browser, or "*" for any;
	// "" (the default) allows none. CheckOrigin validates it.
	CORSOrigin string
	// BodyTimeout bounds the time a request body may take to arrive once
	// its headers have (0: 30s). The response is not bounded: a stream
	// lasts as long as its generation.
	BodyTimeout time.Duration
	// NoBuild refuses (409) a request for a GRC rank not built yet
	// instead of building it.
	NoBuild bool
	// MaxBody caps a request body in bytes (0: 4 MiB); MaxHidden caps the
	// values /isagi/v1/hidden returns (0: 1<<20).
	MaxBody   int64
	MaxHidden int
	// SessionDir is where "save" writes a session's .miku file ("":
	// saving is refused).
	SessionDir string
	// AppVersion is recorded in saved sessions.
	AppVersion string
	// Log receives one line per request and the progress of rank builds
	// (nil: discarded).
	Log *log.Logger
}

// Server serves one loaded model. Create it with New; it is an
// http.Handler.
type Server struct {
	cfg     Config
	root    *session.Session
	created int64
	mux     *http.ServeMux

	// turn is held by a request while it works on its conversation on the
	// host (its settings, sampling, its answer), one request at a time;
	// it is let go while the conversation waits for the batch's step.
	turn  turnstile
	batch *session.Batch // the conversations' forward passes, computed together
	slots chan struct{}  // generating requests (Parallel)
	wait  chan struct{}  // requests waiting for a slot (Queue)

	idle chan *session.Session // stateless conversations not in use

	// drain is cancelled by Drain: replies in progress end where they
	// are, each with its final chunk, and new ones are refused.
	drain     context.Context
	stopDrain context.CancelFunc

	mu    sync.Mutex
	named map[string]*list.Element // session id → element of lru
	lru   *list.List               // *named, most recently used first
}

// named is a conversation kept under a session id.
type named struct {
	id   string
	s    *session.Session
	busy bool
}

// New makes a server over root, the session that loaded the model (and
// its geometry profile, if any): every conversation the server runs is a
// fork of it. The server does not close root.
func New(root *session.Session, cfg Config) (*Server, error) {
	if cfg.Parallel <= 0 {
		cfg.Parallel = 1
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 4 * cfg.Parallel
	}
	if cfg.Sessions <= 0 {
		cfg.Sessions = 8
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 4 << 20
	}
	if cfg.MaxHidden <= 0 {
		cfg.MaxHidden = 1 << 20
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = 30 * time.Second
	}
	if cfg.CORSOrigin != "" {
		origin, err := CheckOrigin(cfg.CORSOrigin)
		if err != nil {
			return nil, err
		}
		cfg.CORSOrigin = origin
	}
	if cfg.ModelID == "" {
		cfg.ModelID = root.Info().Name
	}
	if cfg.Log == nil {
		cfg.Log = log.New(discard{}, "", 0)
	}
	s := &Server{
		cfg: cfg, root: root, created: time.Now().Unix(),
		slots: make(chan struct{}, cfg.Parallel), wait: make(chan struct{}, cfg.Queue),
		idle:  make(chan *session.Session, cfg.Parallel),
		named: map[string]*list.Element{}, lru: list.New(),
	}
	s.drain, s.stopDrain = context.WithCancel(context.Background())
	batch, err := root.NewBatch(session.BatchOptions{
		Chunk:  cfg.Chunk,
		Unlock: s.turn.release,
		Lock:   func() { _ = s.turn.acquire(context.Background()) },
	})
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s.batch = batch
	if !batch.Batches() {
		cfg.Log.Printf("this backend computes one conversation at a time: concurrent requests take turns, a step each")
	}
	for range cfg.Parallel {
		f, err := s.fork()
		if err != nil {
			s.Close()
			return nil, err
		}
		s.idle <- f
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/health", s.health)
	mux.HandleFunc("/v1/health", s.health)
	mux.HandleFunc("/v1/models", s.models)
	mux.HandleFunc("/v1/models/{id}", s.models)
	mux.HandleFunc("/v1/chat/completions", s.chat)
	mux.HandleFunc("/v1/completions", s.completions)
	mux.HandleFunc("/v1/embeddings", s.embeddings)
	mux.HandleFunc("/isagi/v1/hidden", s.hidden)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{Status: http.StatusNotFound, Type: "invalid_request_error",
			Message: fmt.Sprintf("there is no endpoint %s %s (see docs/serve.md)", r.Method, r.URL.Path)})
	})
	s.mux = mux
	return s, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// ServeHTTP answers CORS preflights, checks the API key, routes the
// request and logs what went wrong with it: a 4xx or 5xx with its
// message, or a client that hung up.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w}
	s.route(rec, r)
	switch {
	case rec.gone != "":
		s.cfg.Log.Printf("%s %s from %s: the client hung up %s", r.Method, r.URL.Path, r.RemoteAddr, rec.gone)
	case rec.err != nil:
		param := ""
		if rec.err.Param != "" {
			param = " (" + rec.err.Param + ")"
		}
		s.cfg.Log.Printf("%s %s from %s: %d%s %s", r.Method, r.URL.Path, r.RemoteAddr, rec.err.Status, param, rec.err.Message)
	case rec.status >= 400:
		s.cfg.Log.Printf("%s %s from %s: %d", r.Method, r.URL.Path, r.RemoteAddr, rec.status)
	}
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if s.cors(w, r) {
		return
	}
	// /health is for load balancers and supervisors, which carry no key
	// (llama-server leaves it open too).
	if s.cfg.APIKey != "" && r.URL.Path != "/health" && r.URL.Path != "/v1/health" {
		if e := s.authorize(r.Header.Get("Authorization")); e != nil {
			writeError(w, e)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// authorize checks an Authorization header against the API key. Only the
// Bearer scheme is taken (its name in any case, as RFC 9110 has it): a
// bare key or another scheme is refused, and no message repeats what was
// sent after the scheme, which may be a secret.
func (s *Server) authorize(header string) *apiError {
	unauthorized := func(format string, a ...any) *apiError {
		return &apiError{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Message: fmt.Sprintf(format, a...)}
	}
	header = strings.TrimSpace(header)
	scheme, key, found := strings.Cut(header, " ")
	switch {
	case header == "":
		return unauthorized("an API key is required: send it as \"Authorization: Bearer KEY\"")
	case !found && strings.EqualFold(header, "Bearer"):
		return unauthorized("the Authorization header holds the Bearer scheme but no key after it")
	case !found:
		return unauthorized("the Authorization header must be \"Bearer KEY\", but it holds one word with no scheme before it")
	case !strings.EqualFold(scheme, "Bearer"):
		if len(scheme) > 20 {
			scheme = scheme[:20] + "…"
		}
		return unauthorized("the Authorization header must use the Bearer scheme (\"Bearer KEY\"), not %q", scheme)
	case subtle.ConstantTimeCompare([]byte(strings.TrimSpace(key)), []byte(s.cfg.APIKey)) != 1:
		return unauthorized("the API key sent is not this server's")
	}
	return nil
}

// health is GET /health (and /v1/health), as llama-server has it: the
// model is loaded before the server listens, so it is ready — until its
// backend fails for good (a remote server that died): then 503 with the
// reason, so that a supervisor restarts the server instead of sending it
// requests that can only fail.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, r, http.MethodGet)
		return
	}
	if err := s.root.BackendErr(); err != nil {
		writeError(w, genError(err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
}

// CheckOrigin validates a --cors origin and returns it in the form
// browsers send in the Origin header (lower case, no trailing slash): "*",
// or a scheme://host[:port] of http or https with no path.
func CheckOrigin(origin string) (string, error) {
	if origin == "*" {
		return origin, nil
	}
	u, err := url.Parse(strings.TrimSuffix(origin, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("serve: the CORS origin %q is not an origin: give scheme://host[:port] (e.g. http://localhost:3000) or *", origin)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// cors adds the CORS headers for the configured origin and answers a
// preflight (an OPTIONS request with Access-Control-Request-Method),
// returning true when it did. Preflights come without credentials, so
// this runs before the key is checked.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) (answered bool) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	allowed := s.cfg.CORSOrigin == "*" || (s.cfg.CORSOrigin != "" && strings.EqualFold(origin, s.cfg.CORSOrigin))
	if !allowed {
		if !preflight {
			return false // no header: the browser keeps the answer from the page
		}
		msg := fmt.Sprintf("cross-origin requests are off: start the server with --cors %s to allow that origin", origin)
		if s.cfg.CORSOrigin != "" {
			msg = fmt.Sprintf("the origin %q may not call this server: it allows %q only", origin, s.cfg.CORSOrigin)
		}
		writeError(w, &apiError{Status: http.StatusForbidden, Type: "invalid_request_error", Message: msg})
		return true
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", s.cfg.CORSOrigin)
	if s.cfg.CORSOrigin != "*" {
		h.Add("Vary", "Origin")
	}
	h.Set("Access-Control-Expose-Headers", "Retry-After")
	if !preflight {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	// The headers the page asks for (the openai SDK sends its own x-
	// headers besides Authorization); "*" would not cover Authorization.
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		h.Set("Access-Control-Allow-Headers", req)
	}
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// statusGone marks a request whose client hung up (nginx's 499): it is
// logged, never sent.
const statusGone = 499

// recorder is the ResponseWriter the handlers write to: it keeps the
// status and the error sent, and whether the client hung up, for the
// request's log line.
type recorder struct {
	http.ResponseWriter
	status int
	err    *apiError
	gone   string // when the client hung up ("" while it is there)
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Flush sends what is buffered: the SSE streams need it.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (the body's
// read deadline).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// noteError records e for the request's log line.
func noteError(w http.ResponseWriter, e *apiError) {
	if rec, ok := w.(*recorder); ok {
		rec.err = e
	}
}

// clientGone records that the client hung up, and when, for the
// request's log line; nothing is sent.
func clientGone(w http.ResponseWriter, when string) {
	if rec, ok := w.(*recorder); ok && rec.gone == "" {
		rec.gone = when
	}
}

// errShuttingDown is the cause of a generation ended by Drain.
var errShuttingDown = errors.New("the server is shutting down")

// Drain ends every reply in progress where it is, as a reply that reached
// its token limit ends — each answered in full, a stream with its final
// chunk and [DONE], isagi.stop "shutdown" — and refuses new generations
// with 503. A shutdown calls it before http.Server.Shutdown, which then
// waits for replies that are finishing, not for replies that could run
// for minutes and be cut off mid-stream.
func (s *Server) Drain() { s.stopDrain() }

// shuttingDown is the answer to a generation asked for after Drain.
func shuttingDown() *apiError {
	return &apiError{Status: http.StatusServiceUnavailable, Type: "unavailable_error", Message: "the server is shutting down"}
}

// Close releases every conversation the server made that is not
// answering (the model stays with root).
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, el := range s.named {
		if n := el.Value.(*named); !n.busy {
			_ = n.s.Close()
			s.lru.Remove(el)
			delete(s.named, id)
		}
	}
	for {
		select {
		case f := <-s.idle:
			_ = f.Close()
		default:
			// The batch goes with the last conversation (a busy one keeps
			// it: Close is for a server whose requests are over).
			if s.batch != nil && len(s.named) == 0 {
				s.batch.Close()
				s.batch = nil
			}
			return
		}
	}
}

// models is GET /v1/models and /v1/models/{id}.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		methodNotAllowed(w, r, http.MethodGet)
		return
	}
	m := map[string]any{"id": s.cfg.ModelID, "object": "model", "created": s.created, "owned_by": "isagi"}
	if id := r.PathValue("id"); id != "" {
		if e := s.checkModel(id); e != nil {
			writeError(w, e)
			return
		}
		writeJSON(w, http.StatusOK, m)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{m}})
}

// checkModel accepts the model's id, and its file name for convenience.
func (s *Server) checkModel(id string) *apiError {
	if id == "" {
		return badRequest("model", "model is required: this server serves %q", s.cfg.ModelID)
	}
	info := s.root.Info()
	if id == s.cfg.ModelID || id == info.Name || id == filepath.Base(info.Path) || id == strings.TrimSuffix(filepath.Base(info.Path), ".gguf") {
		return nil
	}
	return &apiError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "model", Code: "model_not_found",
		Message: fmt.Sprintf("the model %q does not exist here: this server serves %q", id, s.cfg.ModelID)}
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, &apiError{Status: http.StatusMethodNotAllowed, Type: "invalid_request_error",
		Message: fmt.Sprintf("%s takes %s, not %s", r.URL.Path, allow, r.Method)})
}

// admit takes a generating slot, waiting in the queue if all are taken;
// a full queue is a 429. release gives the slot back.
func (s *Server) admit(ctx context.Context) (release func(), e *apiError) {
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	default:
	}
	select {
	case s.wait <- struct{}{}:
	default:
		return nil, &apiError{Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "server_busy", RetryAfter: 1,
			Message: fmt.Sprintf("the server is busy: %d requests are generating and %d waiting; retry later", s.cfg.Parallel, s.cfg.Queue)}
	}
	defer func() { <-s.wait }()
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, &apiError{Status: statusGone, Type: "cancelled", Message: "the client went away"}
	}
}

// readPost checks the method is POST and decodes the body into v; on a
// mistake it answers and returns false.
func (s *Server) readPost(w http.ResponseWriter, r *http.Request, v any) bool {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, r, http.MethodPost)
		return false
	}
	// The headers had the http.Server's ReadHeaderTimeout; the body gets a
	// deadline of its own here, so that the server enforces it however it
	// is mounted and answers 408 in a sentence. It bounds reading only:
	// net/http lifts a connection's read deadline once the body is read
	// to its end, and it is lifted here too rather than relied on, so a
	// long stream is never cut by it. (A WriteTimeout would cut them.)
	rc := http.NewResponseController(w)
	limited := rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout)) == nil
	e := decodeBody(r.Body, s.cfg.MaxBody, s.cfg.BodyTimeout, v)
	if e != nil && (e.Status == http.StatusRequestTimeout || e.Status == http.StatusRequestEntityTooLarge) {
		// The body is not all read, and the deadline stays: net/http
		// reads what is left of a body before it answers, and would wait
		// on a slow sender without one. The connection is done with.
		w.Header().Set("Connection", "close")
		writeError(w, e)
		return false
	}
	if limited {
		_ = rc.SetReadDeadline(time.Time{})
	}
	if e != nil {
		// A failed read of the body cancels the request's context.
		if r.Context().Err() != nil {
			clientGone(w, "while sending the request")
			return false
		}
		writeError(w, e)
		return false
	}
	return true
}

// admitOrAnswer is admit that answers a refusal itself (nothing when the
// client went away); ok says whether the request holds a slot.
func (s *Server) admitOrAnswer(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	release, e := s.admit(r.Context())
	if e != nil {
		if e.Status == statusGone {
			clientGone(w, "while waiting in the queue")
		} else {
			writeError(w, e)
		}
		return nil, false
	}
	return release, true
}

// conversation returns the conversation a request runs in: its named
// session's (made on first use), or an idle stateless one. The caller
// holds a slot, so a stateless one is free. put gives it back.
func (s *Server) conversation(id string) (c *session.Session, put func(), e *apiError) {
	if id == "" {
		c := <-s.idle
		return c, func() { s.idle <- c }, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.named[id]; ok {
		n := el.Value.(*named)
		if n.busy {
			return nil, nil, &apiError{Status: http.StatusConflict, Type: "invalid_request_error", Param: "isagi.session_id", Code: "session_busy",
				Message: fmt.Sprintf("session %q is answering another request: send one request at a time per session", id)}
		}
		n.busy = true
		s.lru.MoveToFront(el)
		return n.s, s.done(n), nil
	}
	if s.lru.Len() >= s.cfg.Sessions {
		// Evict the least recently used idle session.
		var victim *list.Element
		for el := s.lru.Back(); el != nil; el = el.Prev() {
			if !el.Value.(*named).busy {
				victim = el
				break
			}
		}
		if victim == nil {
			return nil, nil, &apiError{Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "sessions_full", RetryAfter: 1,
				Message: fmt.Sprintf("all %d sessions are answering: retry later", s.cfg.Sessions)}
		}
		v := s.lru.Remove(victim).(*named)
		delete(s.named, v.id)
		// Not busy, so no request holds it: what its states hold on the
		// device (projected weights, a backend share) goes now.
		_ = v.s.Close()
		s.cfg.Log.Printf("session %s evicted (least recently used)", v.id)
	}
	f, err := s.fork()
	if err != nil {
		return nil, nil, &apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: err.Error()}
	}
	n := &named{id: id, s: f, busy: true}
	s.named[id] = s.lru.PushFront(n)
	return f, s.done(n), nil
}

// fork makes a conversation for the server: a fork of root, computing in
// the server's batch.
func (s *Server) fork() (*session.Session, error) {
	f, err := s.root.Fork(s.cfg.Ctx, s.root.Settings())
	if err != nil {
		return nil, fmt.Errorf("serve: a conversation: %w", err)
	}
	if err := f.JoinBatch(s.batch); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("serve: a conversation: %w", err)
	}
	return f, nil
}

// BatchStats are the counts of the batch's steps so far: how many ran, how
// many computed more than one conversation, and the tokens and
// conversations they computed.
func (s *Server) BatchStats() session.BatchStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batch == nil {
		return session.BatchStats{}
	}
	return s.batch.Stats()
}

func (s *Server) done(n *named) func() {
	return func() {
		s.mu.Lock()
		n.busy = false
		s.mu.Unlock()
	}
}

// turnstile is a fair lock: the host side of the conversations (their
// settings, sampling, answers), held by one request at a time and handed
// to waiters in the order they came.
type turnstile struct {
	mu      sync.Mutex
	held    bool
	waiters []chan struct{}
}

// acquire takes the model, waiting in line; cancelling ctx leaves the line.
func (t *turnstile) acquire(ctx context.Context) error {
	t.mu.Lock()
	if !t.held {
		t.held = true
		t.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	t.waiters = append(t.waiters, ch)
	t.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		t.mu.Lock()
		for i, w := range t.waiters {
			if w == ch {
				t.waiters = append(t.waiters[:i], t.waiters[i+1:]...)
				t.mu.Unlock()
				return ctx.Err()
			}
		}
		t.mu.Unlock()
		// Handed over as ctx ended: pass it on.
		t.release()
		return ctx.Err()
	}
}

// release hands the model to the first in line, or frees it.
func (t *turnstile) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.waiters) == 0 {
		t.held = false
		return
	}
	ch := t.waiters[0]
	t.waiters = t.waiters[1:]
	close(ch) // held stays true: it changes hands
}
