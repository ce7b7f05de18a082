// Package servecmd is `isagi serve`: the OpenAI-compatible server.
package servecmd

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/serve"
	"github.com/isagi-lab/isagi/session"
)

// Main is `isagi serve`: the OpenAI-compatible server (package serve).
func Main(env base.Env, args []string) error {
	fs := env.FlagSet("serve", usageHead, "")
	mf := base.ModelFlags{Version: env.Version}
	mf.RegisterModel(fs)
	mf.Steer.Register(fs)
	defer mf.Dev.Close()
	host := fs.String("host", "127.0.0.1", "address to listen on; anything but loopback needs --api-key")
	port := fs.Int("port", 11435, "port to listen on (0: any free port, printed at start)")
	apiKey := fs.String("api-key", os.Getenv("ISAGI_API_KEY"), "require \"Authorization: Bearer KEY\" (default $ISAGI_API_KEY)")
	parallel := fs.Int("parallel", 4, "requests generating at once, computed together in one batch on the one model (each its own KV cache, allocated at start)")
	chunk := fs.Int("chunk", 32, "prompt tokens of one request a batch step computes while other requests decode (larger: faster prompts, slower streams meanwhile)")
	queue := fs.Int("queue", 0, "requests waiting for a turn before more get 429 (default 4 × --parallel)")
	sessions := fs.Int("sessions", 8, "conversations kept under an isagi.session_id (least recently used go first)")
	sessionDir := fs.String("session-dir", "", "where isagi.save writes <session_id>.miku (default: saving refused)")
	noBuild := fs.Bool("no-build", false, "refuse (409) a request for a GRC rank not built yet instead of building it")
	maxBody := fs.Int64("max-body", 4<<20, "largest request body in bytes")
	bodyTimeout := fs.Duration("body-timeout", 30*time.Second, "longest a request body may take to arrive (408 beyond it); responses, streams included, are not bounded")
	cors := fs.String("cors", "", "let web pages of this origin (scheme://host[:port], or * for any) call the server from a browser (default: none)")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return base.ArgsError(fs, "unexpected argument %q", fs.Arg(0))
	}
	if err := mf.Steer.Check(); err != nil {
		return err
	}
	if *port < 0 || *port > 65535 {
		return base.Usagef("serve: --port %d is not a port (0…65535)", *port)
	}
	if *parallel < 1 || *parallel > 64 {
		return base.Usagef("serve: --parallel must be 1…64, not %d", *parallel)
	}
	if *chunk < 1 || *chunk > 256 {
		return base.Usagef("serve: --chunk must be 1…256, not %d", *chunk)
	}
	if *bodyTimeout <= 0 {
		return base.Usagef("serve: --body-timeout must be above 0, not %v", *bodyTimeout)
	}
	if *cors != "" {
		if _, err := serve.CheckOrigin(*cors); err != nil {
			return base.Usagef("%v", err)
		}
	}
	if !loopback(*host) && *apiKey == "" {
		return base.Usagef("serve: --host %s is reachable from other machines: give --api-key KEY (or $ISAGI_API_KEY) so that not anyone on the network can use the model", *host)
	}
	if os.Getenv("GOGC") == "" {
		// A server's live heap is mostly its conversations' KV caches and
		// the packed weights: allocated once, pointer-free. At Go's default
		// GOGC of 100 the heap may hold as much garbage again before a
		// collection, and the resident memory climbed from 0.3 to 0.9 GB
		// over 1,500 requests of the 135M shape at --parallel 8; at 20 it
		// stays near the live size (0.38–0.42 GB over 1,000), and marking
		// pointer-free memory costs little.
		debug.SetGCPercent(20)
	}
	s, err := mf.OpenSession(mf.SessionOptions(session.Options{AppVersion: env.Version}))
	if err != nil {
		return err
	}
	defer s.Close()
	logger := log.New(env.Stderr, "isagi serve: ", log.LstdFlags)
	if loaded, err := s.Geometry().Load(); err != nil {
		logger.Printf("geometry profile not loaded: %v", err)
	} else if !loaded {
		logger.Printf("no geometry profile for this model: TEH, Snipe, OGD and memory need `isagi calibrate` first")
	}
	for _, note := range s.Notes() {
		logger.Print(note)
	}
	if mf.Steer.Given() {
		// Every request's default, as llama-server's control vectors are;
		// a request's isagi.steer replaces it for that request.
		if err := s.Set("steer", mf.Steer.Spec()); err != nil {
			return fmt.Errorf("--control-vector: %w", err)
		}
		logger.Printf("steering every request with %s", mf.Steer.Spec())
	}
	id := s.Info().Name
	srv, err := serve.New(s, serve.Config{
		ModelID: id, Parallel: *parallel, Chunk: *chunk, Queue: *queue, Sessions: *sessions, Ctx: mf.Ctx,
		APIKey: *apiKey, CORSOrigin: *cors, BodyTimeout: *bodyTimeout, NoBuild: *noBuild, MaxBody: *maxBody, SessionDir: *sessionDir,
		AppVersion: env.Version, Log: logger,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	// No WriteTimeout: it would cut a stream that outlasts it. The body's
	// time limit is the server's own (--body-timeout, answered with a
	// 408); IdleTimeout drops kept-alive connections nobody uses.
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	logger.Printf("%s (%s, %d-token context, %d in parallel) listening on http://%s/v1", id, s.Info().WeightType, s.Info().ContextSize, *parallel, ln.Addr())
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Print("shutting down")
	// Replies in progress end now, each answered in full (a stream with
	// its final chunk): Shutdown then waits seconds, not for a long reply
	// it would cut off mid-stream at its deadline.
	srv.Drain()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if st := srv.BatchStats(); st.Steps > 0 {
		logger.Printf("%d batch steps computed %d tokens; %d of them more than one request (%.2f requests a step)",
			st.Steps, st.Rows, st.Batched, float64(st.Seqs)/float64(st.Steps))
	}
	return nil
}

// loopback reports whether host names only this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// usageHead is `isagi serve --help` before the flags.
const usageHead = `Usage: isagi serve (--model FILE.gguf | --demo) [flags]

Serves the model over the OpenAI API (POST /v1/chat/completions,
/v1/completions, /v1/embeddings; GET /v1/models), streaming or not, with
ISAGI's extensions: an "isagi" object in requests (snipe, ogd_alpha, rank,
slots, alloc, memory, session_id, save) and responses (per-token TEH,
memory tier, the GRC plan, tok/s), and POST /isagi/v1/hidden for the
residual stream of a text; GET /health answers {"status":"ok"}.
See docs/serve.md.

It listens on loopback only unless --api-key is given.

Examples:
  isagi serve --model smollm2-135m-instruct
  curl -s localhost:11435/v1/chat/completions -d '{"model":"smollm2-135m-instruct","messages":[{"role":"user","content":"Hi"}]}'
  OPENAI_BASE_URL=http://127.0.0.1:11435/v1 OPENAI_API_KEY=none your-openai-tool

Flags:
`
