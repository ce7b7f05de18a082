// Package serve is `isagi serve`: an OpenAI-compatible HTTP server over
// one loaded model (chat completions, completions, models, embeddings,
// streamed as server-sent events or not) that also serves what only ISAGI
// has — per-request Snipe projectors, Safe OGD, GRC rank, living memory
// per session, per-token TEH and the residual stream itself
// (docs/serve.md).
//
// Conversations decode in turn on the one model: each request holds a
// conversation (a session.Session forked from the loaded one: its own KV
// cache) and takes the model for one token at a time, in arrival order,
// so streams progress together. At most Parallel requests generate at
// once and Queue more wait; beyond that a request gets 429.
package serve

import (
	"container/list"
	"context"
	"crypto/subtle"
	"fmt"
	"log"
	"net/http"
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
	// Parallel is how many requests generate at once (decoding in turn);
	// Queue how many more may wait for one of them. 0: 1 and 4×Parallel.
	Parallel, Queue int
	// Sessions bounds the named sessions kept (least recently used go
	// first); 0: 8.
	Sessions int
	// Ctx is each conversation's context window (0: the loaded session's).
	Ctx int
	// APIKey, when set, is required as "Authorization: Bearer KEY".
	APIKey string
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

	turn  turnstile     // the model: held by one conversation at a time
	slots chan struct{} // generating requests (Parallel)
	wait  chan struct{} // requests waiting for a slot (Queue)

	idle chan *session.Session // stateless conversations not in use

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
	for range cfg.Parallel {
		f, err := root.Fork(cfg.Ctx, root.Settings())
		if err != nil {
			return nil, fmt.Errorf("serve: a conversation: %w", err)
		}
		s.idle <- f
	}
	mux := http.NewServeMux()
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

// ServeHTTP checks the API key and routes the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cfg.APIKey != "" {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.APIKey)) != 1 {
			writeError(w, &apiError{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key",
				Message: "a valid API key is required: send it as \"Authorization: Bearer KEY\""})
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// Close releases every conversation the server made that is not
// answering (the model stays with root).
func (s *Server) Close() {
	s.mu.Lock()
	for id, el := range s.named {
		if n := el.Value.(*named); !n.busy {
			_ = n.s.Close()
			s.lru.Remove(el)
			delete(s.named, id)
		}
	}
	s.mu.Unlock()
	for {
		select {
		case f := <-s.idle:
			_ = f.Close()
		default:
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
		return nil, &apiError{Status: 499, Type: "cancelled", Message: "the client went away"}
	}
}

// readPost checks the method is POST and decodes the body into v; on a
// mistake it answers and returns false.
func (s *Server) readPost(w http.ResponseWriter, r *http.Request, v any) bool {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, r, http.MethodPost)
		return false
	}
	if e := decodeBody(r.Body, s.cfg.MaxBody, v); e != nil {
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
		if e.Status != 499 {
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
	f, err := s.root.Fork(s.cfg.Ctx, s.root.Settings())
	if err != nil {
		return nil, nil, &apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: err.Error()}
	}
	n := &named{id: id, s: f, busy: true}
	s.named[id] = s.lru.PushFront(n)
	return f, s.done(n), nil
}

func (s *Server) done(n *named) func() {
	return func() {
		s.mu.Lock()
		n.busy = false
		s.mu.Unlock()
	}
}

// turnstile is a fair lock: the model, held by one conversation at a time
// and handed to waiters in the order they came, so that conversations
// decoding together each get a token in turn.
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

// yield lets everyone already in line have a turn first.
func (t *turnstile) yield() {
	t.mu.Lock()
	none := len(t.waiters) == 0
	t.mu.Unlock()
	if none {
		return
	}
	t.release()
	_ = t.acquire(context.Background())
}
