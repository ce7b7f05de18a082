package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/session"
)

// plan is a validated generation request.
type plan struct {
	chat     bool
	msgs     []session.Message // chat
	prompt   string            // completion
	stream   bool
	usage    bool   // stream_options.include_usage
	maxTok   int    // 0: up to the context
	maxName  string // the field that gave maxTok, for messages
	stops    []string
	logprobs bool
	top      int
	echo     bool // completions: the prompt comes back before the reply
	set      func(base session.Settings) session.Settings
	ext      extRequest
	// format is what response_format asks every token to keep to (nil:
	// plain text).
	format *session.Format
	// tools are the functions offered and what is asked of them (nil:
	// none).
	tools *session.ToolUse
	// syntax is the model's tool-call syntax (session.ToolSyntax).
	syntax string
}

const maxTopLogprobs = 20

// parse validates a request; every mistake is one sentence naming the
// field.
func (s *Server) parse(req *genRequest, isChat bool) (*plan, *apiError) {
	if e := s.checkModel(req.Model); e != nil {
		return nil, e
	}
	p := &plan{chat: isChat, stream: req.Stream, stops: req.Stop, syntax: s.root.ToolSyntax()}
	if req.Isagi != nil {
		p.ext = *req.Isagi
	}
	if isChat {
		if len(req.Messages) == 0 {
			return nil, badRequest("messages", "messages must hold at least one message")
		}
		for i, m := range req.Messages {
			text, e := textOf(i, m.Content)
			if e != nil {
				return nil, e
			}
			switch m.Role {
			case "system", "developer":
				m.Role = "system"
			case "user", "assistant", "tool":
			default:
				return nil, badRequest(fmt.Sprintf("messages[%d].role", i), "messages[%d].role %q is not one of system, developer, user, assistant, tool", i, m.Role)
			}
			extra, e := messageExtra(i, m)
			if e != nil {
				return nil, e
			}
			p.msgs = append(p.msgs, session.Message{Role: m.Role, Content: text, Extra: extra})
		}
	} else {
		if req.Prompt == nil || len(*req.Prompt) == 0 {
			return nil, badRequest("prompt", "prompt is required: a string")
		}
		if len(*req.Prompt) > 1 {
			return nil, badRequest("prompt", "prompt must be one string: this server answers one prompt per request")
		}
		p.prompt = (*req.Prompt)[0]
	}
	if req.StreamOptions != nil {
		if !req.Stream {
			return nil, badRequest("stream_options", "stream_options is only allowed with stream: true")
		}
		p.usage = req.StreamOptions.IncludeUsage
	}
	if req.N != nil && *req.N != 1 {
		return nil, badRequest("n", "n must be 1, not %d: this server returns one choice", *req.N)
	}
	if e := p.parseUnsupported(req); e != nil {
		return nil, e
	}
	if len(p.stops) > 4 {
		return nil, badRequest("stop", "stop holds %d sequences; at most 4", len(p.stops))
	}
	for _, st := range p.stops {
		if st == "" {
			return nil, badRequest("stop", "a stop sequence must not be empty")
		}
	}
	maxTok := req.MaxTokens
	p.maxName = "max_tokens"
	if req.MaxCompletionTokens != nil {
		maxTok, p.maxName = req.MaxCompletionTokens, "max_completion_tokens"
	}
	if maxTok != nil {
		if *maxTok < 1 {
			return nil, badRequest(p.maxName, "%s must be at least 1, not %d", p.maxName, *maxTok)
		}
		p.maxTok = *maxTok
	}
	if e := p.parseLogprobs(req); e != nil {
		return nil, e
	}
	if p.echo && p.logprobs {
		return nil, badRequest("echo", "echo cannot be combined with logprobs: this server scores the tokens it generates, not the prompt's")
	}
	temp, topP := -1.0, -1.0
	if req.Temperature != nil {
		if t := *req.Temperature; !finite(t) || t < 0 || t > 2 {
			return nil, badRequest("temperature", "temperature must be between 0 and 2, not %v", t)
		}
		temp = *req.Temperature
	}
	if req.TopP != nil {
		if t := *req.TopP; !finite(t) || t <= 0 || t > 1 {
			return nil, badRequest("top_p", "top_p must be above 0 and at most 1, not %v", t)
		}
		topP = *req.TopP
	}
	var seed uint64
	hasSeed := req.Seed != nil
	if hasSeed {
		seed = uint64(*req.Seed)
	}
	x := p.ext
	if x.SessionID != "" && !sessionIDPattern.MatchString(x.SessionID) {
		return nil, badRequest("isagi.session_id", "isagi.session_id must be 1 to 64 letters, digits, '-' or '_'")
	}
	if x.SessionID == "" && (x.Save || x.Memory != nil) {
		return nil, badRequest("isagi.session_id", "isagi.save and isagi.memory need an isagi.session_id: a stateless request keeps nothing")
	}
	if x.Save && s.cfg.SessionDir == "" {
		return nil, badRequest("isagi.save", "this server saves no sessions: start it with --session-dir DIR")
	}
	prof := s.root.Geometry().Profile()
	if (x.Snipe != nil && len(*x.Snipe) > 0) || (x.OGDAlpha != nil && *x.OGDAlpha != 0) || (x.Memory != nil && *x.Memory) {
		if prof == nil {
			return nil, badRequest("isagi", "isagi.snipe, isagi.ogd_alpha and isagi.memory need the model's geometry profile, and none is loaded: run `isagi calibrate` for this model")
		}
	}
	if x.Snipe != nil {
		for _, name := range *x.Snipe {
			if _, ok := prof.Category(name); !ok {
				return nil, badRequest("isagi.snipe", "isagi.snipe: there is no projector %q; the profile has %s", name, strings.Join(prof.CategoryNames(), ", "))
			}
		}
	}
	if x.OGDAlpha != nil && (!finite(*x.OGDAlpha) || *x.OGDAlpha < 0 || *x.OGDAlpha > 1) {
		return nil, badRequest("isagi.ogd_alpha", "isagi.ogd_alpha must be between 0 and 1, not %v", *x.OGDAlpha)
	}
	if x.Rank != nil && (*x.Rank < 0 || *x.Rank > s.root.Probe().Dim()) {
		return nil, badRequest("isagi.rank", "isagi.rank must be between 0 (off) and the model's width %d, not %d", s.root.Probe().Dim(), *x.Rank)
	}
	if x.KVKeep != nil && (!finite(*x.KVKeep) || *x.KVKeep < 0.01 || *x.KVKeep > 1) {
		return nil, badRequest("isagi.kv_keep", "isagi.kv_keep must be a share of the positions between 0.01 and 1 (1: no eviction), not %v", *x.KVKeep)
	}
	if x.KVScorer != nil {
		if err := session.CheckKVScorer(*x.KVScorer); err != nil {
			return nil, badRequest("isagi.kv_scorer", "isagi.kv_scorer: %v", err)
		}
	}
	moe := s.root.Experts().MoE()
	if x.Experts && !moe {
		return nil, badRequest("isagi.experts", "isagi.experts: %v", session.ErrNoExperts)
	}
	var expertOff string
	if x.ExpertOff != nil {
		var err error
		if expertOff, err = s.root.Experts().CheckOff(*x.ExpertOff); err != nil {
			return nil, badRequest("isagi.expert_off", "isagi.expert_off %q: %v", *x.ExpertOff, err)
		}
	}
	steerSpec, aerr := s.steerSpec(x.Steer)
	if aerr != nil {
		return nil, aerr
	}
	system := ""
	if len(p.msgs) > 0 && p.msgs[0].Role == "system" {
		system = p.msgs[0].Content
	}
	p.set = func(base session.Settings) session.Settings {
		def := session.DefaultSettings()
		// Sampling is the request's alone; what it does not say is the
		// server's default. The living-model knobs are kept by a named
		// session and default to off for a stateless one.
		base.Temperature, base.TopK, base.TopP, base.MinP, base.RepeatPenalty = def.Temperature, def.TopK, def.TopP, def.MinP, def.RepeatPenalty
		if temp >= 0 {
			base.Temperature = float32(temp)
		}
		if topP >= 0 {
			base.TopP = float32(topP)
		}
		base.Seed = uint64(time.Now().UnixNano())
		if hasSeed {
			base.Seed = seed
		}
		base.System = system
		base.Draft, base.DraftN, base.OnlineBasis = "", 0, false
		if x.Snipe != nil {
			base.Snipe = strings.Join(*x.Snipe, ",")
		}
		if x.OGDAlpha != nil {
			base.OGDAlpha = *x.OGDAlpha
		}
		if x.Rank != nil {
			base.Rank = *x.Rank
		}
		if x.Slots != nil {
			base.Slots = *x.Slots
		}
		if x.Alloc != nil {
			base.Alloc = *x.Alloc
		}
		if x.Memory != nil {
			base.MemoryOff = !*x.Memory
		}
		if x.KVKeep != nil {
			base.KVKeep = *x.KVKeep
			if base.KVKeep == 1 {
				base.KVKeep = 0
			}
		}
		if x.KVScorer != nil {
			base.KVScorer = strings.ToLower(strings.TrimSpace(*x.KVScorer))
		}
		if x.ExpertOff != nil {
			base.ExpertOff = expertOff
		}
		if x.Steer != nil {
			base.Steer = steerSpec
		}
		return base
	}
	return p, nil
}

// parseLogprobs reads chat's logprobs (bool) + top_logprobs, or a
// completion's logprobs (the count of alternatives).
func (p *plan) parseLogprobs(req *genRequest) *apiError {
	raw := req.Logprobs
	if len(raw) == 0 || string(raw) == "null" {
		if req.TopLogprobs != nil && *req.TopLogprobs > 0 {
			return badRequest("top_logprobs", "top_logprobs needs logprobs: true")
		}
		return nil
	}
	if p.chat {
		if err := json.Unmarshal(raw, &p.logprobs); err != nil {
			return badRequest("logprobs", "\"logprobs\" must be true or false, got %s", showJSON(raw))
		}
		if req.TopLogprobs != nil {
			if !p.logprobs && *req.TopLogprobs > 0 {
				return badRequest("top_logprobs", "top_logprobs needs logprobs: true")
			}
			p.top = *req.TopLogprobs
		}
	} else {
		if err := json.Unmarshal(raw, &p.top); err != nil {
			return badRequest("logprobs", "\"logprobs\" must be an integer (how many alternatives per token), got %s", showJSON(raw))
		}
		p.logprobs = true
	}
	if p.top < 0 || p.top > maxTopLogprobs {
		return badRequest("top_logprobs", "top_logprobs must be between 0 and %d, not %d", maxTopLogprobs, p.top)
	}
	return nil
}

// parseUnsupported reads response_format and the tool fields
// (parseFormat, parseTools), refuses what the server cannot do of
// OpenAI's other fields, rather than answer in plain text as if they had
// not been sent, and reads echo, the one it does. Values that ask for
// nothing pass: best_of 1, an empty suffix.
// echo, suffix and best_of are completions' fields: a chat request's
// are unknown fields, ignored like any other.
func (p *plan) parseUnsupported(req *genRequest) *apiError {
	if rf := req.ResponseFormat; rf != nil {
		if e := p.parseFormat(rf); e != nil {
			return e
		}
	}
	if e := p.parseTools(req); e != nil {
		return e
	}
	if p.chat {
		return nil
	}
	if req.BestOf != nil && *req.BestOf != 1 {
		return badRequest("best_of", "best_of must be 1: this server generates one candidate per request, not %d", *req.BestOf)
	}
	if req.Suffix != nil && *req.Suffix != "" {
		return badRequest("suffix", "suffix is not supported: this server completes a prompt at its end and does not insert text before a suffix")
	}
	p.echo = req.Echo != nil && *req.Echo
	return nil
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request)        { s.generate(w, r, true) }
func (s *Server) completions(w http.ResponseWriter, r *http.Request) { s.generate(w, r, false) }

// generate serves a chat completion or a completion.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, isChat bool) {
	var req genRequest
	if !s.readPost(w, r, &req) {
		return
	}
	p, e := s.parse(&req, isChat)
	if e != nil {
		writeError(w, e)
		return
	}
	release, ok := s.admitOrAnswer(w, r)
	if !ok {
		return
	}
	defer release()
	conv, put, e := s.conversation(p.ext.SessionID)
	if e != nil {
		writeError(w, e)
		return
	}
	defer put()
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	// A shutdown (Drain) ends the generation as the client's going away
	// would, with its own cause: the reply is then finished, not dropped.
	defer context.AfterFunc(s.drain, func() { cancel(errShuttingDown) })()
	draining := func() bool { return errors.Is(context.Cause(ctx), errShuttingDown) }
	if s.drain.Err() != nil {
		writeError(w, shuttingDown())
		return
	}
	if s.turn.acquire(ctx) != nil {
		if draining() {
			writeError(w, shuttingDown())
			return
		}
		clientGone(w, "while waiting for the model")
		return
	}
	defer s.turn.release()

	o, e := s.prepare(ctx, conv, p)
	if e != nil {
		if e.Status == statusGone {
			if draining() {
				writeError(w, shuttingDown())
				return
			}
			clientGone(w, "while its settings were applied")
			return
		}
		writeError(w, e)
		return
	}
	defer o.close()
	o.w, o.cancel = w, func() { cancel(nil) }
	o.drained = func() { cancel(errShuttingDown) }
	o.run(ctx)
	if o.finish == "" {
		if ctx.Err() != nil {
			clientGone(w, fmt.Sprintf("after %d generated tokens", o.completion))
		}
		return // an error, logged with the request
	}
	s.cfg.Log.Printf("%s %s %d+%d tokens %s %.1f tok/s%s", r.Method, r.URL.Path, o.promptTok, o.completion,
		o.finish, o.turn.DecodeTokS, sessionNote(p.ext.SessionID))
}

func sessionNote(id string) string {
	if id == "" {
		return ""
	}
	return " session " + id
}

// prepare applies the request's knobs and conversation to conv and checks
// that the prompt and the reply fit the context.
func (s *Server) prepare(ctx context.Context, conv *session.Session, p *plan) (*output, *apiError) {
	base := conv.Settings()
	if p.ext.SessionID == "" {
		// A stateless request starts from nothing: the knobs the last
		// request on this pooled conversation set are not its. The
		// server's steering (--control-vector) is every request's
		// default, as llama-server's is.
		base = session.Settings{Steer: s.root.Settings().Steer}
	}
	set := p.set(base)
	// The slot set and the allocation are checked on their own first, so
	// that a bad one is blamed on its own field, not on the rank.
	if x := p.ext; x.Slots != nil && *x.Slots != "" {
		if err := session.CheckSlots(*x.Slots); err != nil {
			return nil, badRequest("isagi.slots", "isagi.slots %q: %v", *x.Slots, err)
		}
	}
	if x := p.ext; x.Alloc != nil && *x.Alloc != "" {
		if err := session.CheckAlloc(*x.Alloc); err != nil {
			return nil, badRequest("isagi.alloc", "isagi.alloc %q: %v", *x.Alloc, err)
		}
	}
	built, err := conv.Compression().Built(set)
	if err != nil {
		return nil, badRequest("isagi.rank", "isagi: %v", err)
	}
	if !built {
		if s.cfg.NoBuild {
			return nil, &apiError{Status: http.StatusConflict, Type: "invalid_request_error", Param: "isagi.rank", Code: "rank_not_built",
				Message: fmt.Sprintf("rank %d is not built for this model and the server was started with --no-build: build it with `isagi run --rank %d` first", set.Rank, set.Rank)}
		}
		s.cfg.Log.Printf("building GRC rank %d (slots %q, alloc %q) for the first time", set.Rank, set.Slots, set.Alloc)
	}
	var input string
	var promptTok int
	// Every request sets its own tools, none included (a completion's): a
	// pooled conversation must not keep the last request's, nor the
	// grammar of a required call, when that request failed before it ran.
	if err := conv.SetTools(p.tools); err != nil {
		return nil, badRequest("tools", "tools: %v", err)
	}
	if p.chat {
		if p.ext.SessionID == "" {
			conv.Conversation().ForgetBranches()
		}
		if input, err = conv.Conversation().SetTranscript(p.msgs); err != nil {
			return nil, badRequest("messages", "messages: %v", err)
		}
		promptTok, err = conv.Conversation().PromptTokens(input)
	} else {
		input = p.prompt
		promptTok, err = conv.Conversation().CompletionTokens(input)
	}
	if err != nil {
		return nil, badRequest("messages", "the prompt could not be rendered: %v", err)
	}
	_, window := conv.Conversation().ContextUsed()
	maxTok := p.maxTok
	var notes []string
	switch {
	case promptTok >= window:
		return nil, contextExceeded(window, promptTok)
	case maxTok == 0:
		maxTok = window - promptTok
	case promptTok+maxTok > window:
		// Clients send a max_tokens of their own (4096 is common) that
		// knows nothing of this model's window: as llama-server does, the
		// reply gets what room there is, and the response says so.
		notes = append(notes, fmt.Sprintf("%s %d was lowered to %d: the context window is %d tokens and the prompt takes %d", p.maxName, maxTok, window-promptTok, window, promptTok))
		maxTok = window - promptTok
	}
	set.MaxTokens = maxTok
	last := -1
	progress := func(done, total int) {
		if pct := 100 * done / max(total, 1); pct/25 != last/25 {
			last = pct
			s.cfg.Log.Printf("building GRC rank %d: %d/%d blocks", set.Rank, done, total)
		}
	}
	if err := conv.Apply(ctx, set, progress); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, &apiError{Status: statusGone, Type: "cancelled", Message: "the client went away"}
		}
		return nil, badRequest("isagi", "the settings were refused: %v", err)
	}
	o := &output{s: s, conv: conv, p: p, input: input, promptTok: promptTok, set: set, notes: notes, offset: len(input)}
	if p.maxTok == 0 && p.ext.SessionID != "" {
		o.keepMax = base.MaxTokens
		if o.keepMax < 1 {
			o.keepMax = session.DefaultSettings().MaxTokens
		}
	}
	if conv.Experts().MoE() {
		// Recorded for the requests that ask only: on a device the
		// routing would otherwise be copied back at every layer for
		// nobody.
		if err := conv.Experts().Record(p.ext.Experts); err != nil {
			return nil, &apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: err.Error()}
		}
	}
	if p.logprobs {
		o.lp = newLogprobs(p.top, conv.Probe().TokenBytes)
		remove, err := conv.AddHook(o.lp)
		if err != nil {
			return nil, &apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: err.Error()}
		}
		o.removeHook = remove
	}
	o.stop = newStopper(p.stops)
	return o, nil
}

func contextExceeded(window, prompt int) *apiError {
	msg := fmt.Sprintf("this model's context window is %d tokens, and the prompt alone is %d", window, prompt)
	return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: "messages", Code: "context_length_exceeded", Message: msg}
}

// output runs one request's generation and writes its answer.
type output struct {
	s          *Server
	conv       *session.Session
	p          *plan
	input      string
	promptTok  int
	set        session.Settings
	lp         *logprobs
	removeHook func()
	stop       *stopper
	notes      []string // for the response's isagi.notes
	// keepMax is the session's own max_tokens, put back before a save
	// when the request set none: the room this one request was given is
	// the server's default for it, not the client's knob (0: nothing to
	// put back).
	keepMax int
	// shutdown says Drain ended the reply (isagi.stop "shutdown").
	shutdown bool
	// offset is where the next generated token's text starts in the
	// prompt and reply together (a completion's logprobs.text_offset).
	offset int

	w      http.ResponseWriter
	cancel context.CancelFunc
	// drained ends the generation for a Drain (its cause says so), or is
	// nil. Each token's event calls it once Drain has begun, so that a
	// reply stops at the next token whatever the scheduler does with the
	// AfterFunc that cancels on the drain (on a loaded machine a reply of
	// the demo model could run to its own end first).
	drained func()

	id         string
	created    int64
	completion int // tokens generated, the stop token not counted
	entries    []lpEntry
	gauges     []map[string]any
	// routes are the generated tokens' routing (isagi.experts), pending
	// those not streamed yet; layers the MoE layers their rows follow.
	routes, pending []any
	layers          []int
	tokS            float64
	hit             bool   // a stop sequence ended the reply
	text            string // the reply, cut at a stop sequence
	// thinking is the reply's chain of thought (a harmony model's
	// analysis channel), answered as reasoning_content.
	thinking strings.Builder
	// tr reads the reply's tool calls (nil: no tools offered).
	tr       *session.ToolReader
	finish   string
	turn     session.Turn
	streamed bool // headers sent
}

func (o *output) close() {
	if o.removeHook != nil {
		o.removeHook()
	}
}

func (o *output) run(ctx context.Context) {
	o.begin()
	send := o.conv.SendNoMemory
	switch {
	case !o.p.chat:
		send = o.conv.Complete
	case o.p.ext.SessionID != "" && o.p.format == nil && o.p.tools == nil:
		// A reply held to a format is generated, never served from the
		// living manifold (whose answer knows nothing of the format).
		send = o.conv.Send
	}
	if o.p.format != nil {
		if err := o.conv.SetFormat(o.p.format); err != nil {
			o.answer(ctx, session.Turn{}, fmt.Errorf("serve: response_format: %w", err))
			return
		}
		defer o.conv.SetFormat(nil)
	}
	if o.p.tools != nil {
		// The tools and a required call's grammar were set by prepare;
		// they are this request's only.
		o.tr = o.conv.NewToolReader()
		defer func() { _ = o.conv.SetTools(nil) }()
	}
	turn, err := send(ctx, o.input, o.event)
	o.answer(ctx, turn, err)
}

// begin names the response and, for a stream, sends its headers and first
// chunk.
func (o *output) begin() {
	o.created = time.Now().Unix()
	o.id = fmt.Sprintf("cmpl-%x", time.Now().UnixNano())
	if o.p.chat {
		o.id = "chatcmpl-" + o.id[5:]
	}
	if o.p.stream {
		h := o.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		o.w.WriteHeader(http.StatusOK)
		o.streamed = true
		switch {
		case o.p.chat:
			o.chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil, nil)
		case o.p.echo:
			o.chunkText(o.input, nil, nil, nil)
		}
		// The status and headers go now, whatever comes first: the client
		// knows its stream began while the prompt is computed.
		o.flush()
	}
}

// answer ends the response once the turn is over: the last chunks of a
// stream, or the whole answer.
func (o *output) answer(ctx context.Context, turn session.Turn, err error) {
	o.turn = turn
	if err != nil && !errors.Is(err, context.Canceled) {
		o.fail(genError(err))
		return
	}
	if ctx.Err() != nil && !o.hit {
		if !errors.Is(context.Cause(ctx), errShuttingDown) {
			return // the client went away: nobody to answer (generate logs it)
		}
		o.shutdown = true // the server ends the reply: it is answered in full
	}
	if o.tr != nil && !o.hit {
		text, ds := o.tr.Flush()
		if out, _ := o.stop.add(text); out != "" {
			o.emitText(out, "", nil, nil)
		}
		o.toolDeltas(ds)
	}
	if rest := o.stop.flush(); rest != "" && !o.hit {
		o.emitText(rest, "", nil, nil)
	}
	o.text = o.stop.text()
	switch {
	case o.hit, turn.Stop == "stop token", turn.Stop == "retrieved":
		o.finish = "stop"
	default:
		o.finish = "length"
	}
	var calls []session.ToolCall
	if o.tr != nil {
		calls = o.tr.Calls()
		if len(calls) > 0 && o.finish == "stop" {
			o.finish = "tool_calls"
		}
	}
	if turn.Stop == "retrieved" {
		n, _ := o.conv.Probe().CountTokens(turn.Text)
		o.completion = n
	}
	var saved string
	if o.p.ext.Save {
		var e *apiError
		if saved, e = o.save(); e != nil {
			o.fail(e)
			return
		}
	}
	ext := o.summary(saved)
	usage := map[string]any{"prompt_tokens": o.promptTok, "completion_tokens": o.completion, "total_tokens": o.promptTok + o.completion}
	if o.p.stream {
		o.chunkFinal(ext)
		if o.p.usage {
			o.writeEvent(map[string]any{"id": o.id, "object": o.object(), "created": o.created, "model": o.s.cfg.ModelID,
				"choices": []any{}, "usage": usage, "system_fingerprint": "isagi"})
		}
		fmt.Fprint(o.w, "data: [DONE]\n\n")
		o.flush()
		return
	}
	choice := map[string]any{"index": 0, "finish_reason": o.finish, "logprobs": o.logprobsJSON(o.entries)}
	obj := "text_completion"
	if o.p.chat {
		obj = "chat.completion"
		msg := map[string]any{"role": "assistant", "content": o.text}
		if len(calls) > 0 {
			msg["tool_calls"] = toolCallsJSON(calls)
			if o.text == "" {
				msg["content"] = nil
			}
		}
		if o.thinking.Len() > 0 {
			msg["reasoning_content"] = o.thinking.String()
		}
		choice["message"] = msg
	} else {
		choice["text"] = o.text
		if o.p.echo {
			choice["text"] = o.input + o.text
		}
	}
	writeJSON(o.w, http.StatusOK, map[string]any{"id": o.id, "object": obj, "created": o.created, "model": o.s.cfg.ModelID,
		"choices": []any{choice}, "usage": usage, "isagi": ext, "system_fingerprint": "isagi"})
}

// event handles one step of the reply: the stop sequences, the logprob
// entry, the gauge. (The other conversations' turns come while this one
// waits for the batch's next step.)
func (o *output) event(ev session.Event) {
	if o.drained != nil && o.s.drain.Err() != nil {
		o.drained()
	}
	if o.hit {
		return
	}
	o.tokS = ev.TokPerSec
	var entry *lpEntry
	var gauge map[string]any
	if ev.ID >= 0 && !ev.End {
		o.completion++
		// The logprobs describe the text answered: a hidden token (a
		// control token, a harmony marker or header, the chain of
		// thought) has no entry and moves no offset, so that the entries'
		// tokens add up to the content and each offset is where its
		// token's text starts in it. llama.cpp's server lists every token.
		if o.lp != nil && !ev.Hidden {
			if e, ok := o.lp.entry(ev.Pos, ev.ID); ok {
				e.Offset = o.offset
				entry = &e
			}
			// Every token moves the offset on, whether or not its entry
			// could be read: offsets are positions in the text.
			o.offset += len(o.conv.Probe().TokenBytes(ev.ID))
		}
		if ev.Gauged {
			gauge = o.s.readingJSON(ev.Gauge)
		}
		if o.p.ext.Experts {
			o.route(ev.Pos)
		}
	}
	piece := ev.Piece
	var calls []session.ToolDelta
	if o.tr != nil && !ev.End {
		piece, calls = o.tr.Write(piece)
	}
	out, hit := o.stop.add(piece)
	if hit {
		o.hit = true
		o.cancel() // the reply ends here: stop generating
	}
	// The chain of thought is no content: stop sequences do not apply to
	// it (they would cut the answer before it began).
	thinking := ""
	if o.p.chat {
		thinking = ev.Thinking
		o.thinking.WriteString(thinking)
	}
	if out != "" || thinking != "" || (entry != nil && len(calls) == 0) {
		o.emitText(out, thinking, entry, gauge)
	} else if entry != nil {
		// A token of a call: its logprob is kept for the response, and
		// streamed with no content of its own.
		o.entries = append(o.entries, *entry)
	}
	o.toolDeltas(calls)
}

// emitText records one step's answer text, chain of thought and logprob
// entry, and streams them as one chunk.
func (o *output) emitText(text, thinking string, entry *lpEntry, gauge map[string]any) {
	var entries []lpEntry
	if entry != nil {
		o.entries = append(o.entries, *entry)
		entries = []lpEntry{*entry}
	}
	if gauge != nil {
		o.gauges = append(o.gauges, gauge)
	}
	if !o.p.stream {
		return
	}
	ext := map[string]any{"tok_s": round(o.tokS, 2)}
	if gauge != nil {
		ext["teh"] = gauge
	}
	if len(o.pending) > 0 {
		ext["experts"] = map[string]any{"layers": o.layers, "tokens": o.pending}
		o.pending = nil
	}
	if o.p.chat {
		// reasoning_content is the field llama.cpp's server and vLLM
		// stream the chain of thought in.
		delta := map[string]any{}
		if text != "" || thinking == "" {
			delta["content"] = text
		}
		if thinking != "" {
			delta["reasoning_content"] = thinking
		}
		o.chunk(delta, entries, nil, ext)
	} else {
		o.chunkText(text, entries, nil, ext)
	}
}

func (o *output) object() string {
	if o.p.chat {
		return "chat.completion.chunk"
	}
	return "text_completion"
}

// chunk writes one chat stream chunk.
func (o *output) chunk(delta map[string]any, entries []lpEntry, finish any, ext map[string]any) {
	choice := map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}
	if entries != nil {
		choice["logprobs"] = o.logprobsJSON(entries)
	}
	ev := map[string]any{"id": o.id, "object": "chat.completion.chunk", "created": o.created, "model": o.s.cfg.ModelID,
		"choices": []any{choice}, "system_fingerprint": "isagi"}
	if ext != nil {
		ev["isagi"] = ext
	}
	o.writeEvent(ev)
}

// chunkText writes one completion stream chunk.
func (o *output) chunkText(text string, entries []lpEntry, finish any, ext map[string]any) {
	choice := map[string]any{"index": 0, "text": text, "finish_reason": finish, "logprobs": nil}
	if entries != nil {
		choice["logprobs"] = o.logprobsJSON(entries)
	}
	ev := map[string]any{"id": o.id, "object": "text_completion", "created": o.created, "model": o.s.cfg.ModelID, "choices": []any{choice}}
	if ext != nil {
		ev["isagi"] = ext
	}
	o.writeEvent(ev)
}

func (o *output) chunkFinal(ext map[string]any) {
	if o.p.chat {
		o.chunk(map[string]any{}, nil, o.finish, ext)
	} else {
		o.chunkText("", nil, o.finish, ext)
	}
}

func (o *output) writeEvent(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	fmt.Fprintf(o.w, "data: %s\n\n", b)
	o.flush()
}

func (o *output) flush() {
	if f, ok := o.w.(http.Flusher); ok {
		f.Flush()
	}
}

// fail reports an error: as the response when nothing was sent yet, else
// as a last event of the stream.
func (o *output) fail(e *apiError) {
	if !o.streamed {
		writeError(o.w, e)
		return
	}
	noteError(o.w, e)
	o.writeEvent(map[string]any{"error": map[string]any{"message": e.Message, "type": e.Type, "code": nil, "param": nil}})
}

// save writes a named session to the session directory.
func (o *output) save() (string, *apiError) {
	path := o.s.sessionPath(o.p.ext.SessionID)
	if o.keepMax > 0 {
		if err := o.conv.Set("max_tokens", strconv.Itoa(o.keepMax)); err != nil {
			return "", &apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: fmt.Sprintf("the session could not be saved: %v", err)}
		}
	}
	err := o.conv.Files().Save(context.Background(), path, session.SaveOptions{AppVersion: o.s.cfg.AppVersion, Now: time.Now()})
	if errors.Is(err, session.ErrExists) {
		// A file of that name from an earlier run of the server: the id
		// names it, so it is this session's to replace.
		err = o.conv.Files().Save(context.Background(), path, session.SaveOptions{Overwrite: true, AppVersion: o.s.cfg.AppVersion, Now: time.Now()})
	}
	if err != nil {
		return "", &apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: fmt.Sprintf("the session could not be saved: %v", err)}
	}
	return path, nil
}

// summary is the response's "isagi" object.
func (o *output) summary(saved string) map[string]any {
	t := o.turn
	stop := t.Stop
	switch {
	case o.hit:
		stop = "stop sequence" // the generation was stopped for it, not cancelled
	case o.shutdown:
		stop = "shutdown"
	}
	ext := map[string]any{
		"tok_s": round(t.DecodeTokS, 2), "prefill_tok_s": round(t.PrefillTokS, 2),
		"ttft_ms": round(float64(t.TimeToFirst.Microseconds())/1000, 3), "stop": stop,
		"context_used": t.ContextUsed,
	}
	info := o.conv.Info()
	if info.Rank > 0 {
		ext["grc"] = map[string]any{"rank": info.Rank, "plan": info.RankSpec, "energy": round(info.RankEnergy, 4), "bytes": round(info.RankBytes, 4)}
	} else {
		ext["grc"] = nil
	}
	if o.set.Snipe != "" {
		ext["snipe"] = strings.Split(o.set.Snipe, ",")
	}
	if o.set.OGDAlpha != 0 {
		ext["ogd_alpha"] = o.set.OGDAlpha
	}
	if o.set.Steer != "" {
		uses, _ := session.ParseSteer(o.set.Steer)
		ext["steer"] = uses
	}
	if kv := o.conv.Compression().KV(); kv.On {
		ext["kv"] = map[string]any{"keep": kv.Keep, "scorer": kv.Scorer, "entries": kv.Entries, "window": kv.Window,
			"positions": kv.Positions, "kept": kv.Kept, "evicted": kv.Evicted}
	}
	if prof := o.s.root.Geometry().Profile(); prof != nil {
		teh := map[string]any{"tau": o.s.tauJSON(), "tokens": o.gauges}
		if t.Geometry != nil {
			g := t.Geometry
			teh["prompt"] = o.s.readingJSON(g.Prompt)
			teh["reply"] = o.s.readingJSON(g.Reply)
			teh["peak"] = round(float64(g.Peak), 4)
			teh["flagged"] = g.Flagged
		}
		ext["teh"] = teh
	}
	if o.p.ext.Experts {
		ext["experts"] = o.expertsJSON()
	}
	if t.COG != nil {
		c := t.COG
		ext["cog"] = map[string]any{"tier": c.Tier, "distance": round(c.Distance, 5), "retrieved": c.Retrieved,
			"decision": c.Decision, "why": c.Why, "tau": round(c.Tau, 5), "trajectories": c.Trajectories}
	}
	if o.p.ext.SessionID != "" {
		ext["session_id"] = o.p.ext.SessionID
		ext["memory"] = !o.set.MemoryOff
	}
	if saved != "" {
		ext["saved"] = saved
	}
	if len(o.notes) > 0 {
		ext["notes"] = o.notes
	}
	return ext
}

func round(x float64, places int) float64 {
	if !finite(x) {
		return 0
	}
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

// genError is the answer to a generation that failed: 503 when the
// model's backend is gone for good (a supervisor should restart the
// server; /health says the same), 500 otherwise.
func genError(err error) *apiError {
	if errors.Is(err, session.ErrBackendDead) {
		return &apiError{Status: http.StatusServiceUnavailable, Type: "unavailable_error", Message: err.Error()}
	}
	return &apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: err.Error()}
}

// steerSpec checks a request's isagi.steer and writes it as the steer
// setting ("" for none or absent). A request names vectors, never paths:
// a client of the server must not make it read files of its choosing.
func (s *Server) steerSpec(req *[]steerRequest) (string, *apiError) {
	if req == nil {
		return "", nil
	}
	uses := make([]session.SteerUse, 0, len(*req))
	for i, r := range *req {
		param := fmt.Sprintf("isagi.steer[%d]", i)
		name := strings.TrimSpace(r.Vector)
		switch {
		case name == "":
			return "", badRequest(param, "%s.vector: name a steering vector (a file of the server's steer directory, without .gguf, or a profile category)", param)
		case strings.ContainsAny(name, `/\,:@`) || strings.HasSuffix(name, ".gguf") || strings.HasPrefix(name, "."):
			return "", badRequest(param, "%s.vector %q: a name, not a path (the server finds NAME.gguf in its steer directory)", param, name)
		}
		u := session.SteerUse{Vector: name, Scale: 1}
		if r.Scale != nil {
			if !finite(*r.Scale) || math.Abs(*r.Scale) > 1e6 {
				return "", badRequest(param, "%s.scale must be a finite number, not %v", param, *r.Scale)
			}
			u.Scale = float32(*r.Scale)
		}
		switch len(r.Layers) {
		case 0:
		case 2:
			if r.Layers[0] < 0 || r.Layers[1] < r.Layers[0] {
				return "", badRequest(param, "%s.layers must be [start, end] with 0 ≤ start ≤ end, not %v", param, r.Layers)
			}
			u.Start, u.End = r.Layers[0], r.Layers[1]
		default:
			return "", badRequest(param, "%s.layers must be [start, end], not %v", param, r.Layers)
		}
		uses = append(uses, u)
	}
	spec := session.FormatSteer(uses)
	if err := s.root.Steering().Check(spec); err != nil {
		return "", badRequest("isagi.steer", "isagi.steer: %v", err)
	}
	return spec, nil
}

// parseFormat reads response_format into the form every sampled token
// must keep to: any JSON object for "json_object", a document of the
// schema for "json_schema" (OpenAI's strict subset when strict is true).
// A schema the converter cannot express is one sentence naming its part.
func (p *plan) parseFormat(rf *responseFormat) *apiError {
	var err error
	switch rf.Type {
	case "", "text":
		return nil
	case "json_object":
		p.format, err = session.JSONObjectFormat()
	case "json_schema":
		js := rf.JSONSchema
		if js == nil || len(js.Schema) == 0 || string(js.Schema) == "null" {
			return badRequest("response_format.json_schema.schema", "response_format json_schema needs json_schema.schema, the JSON Schema the reply must follow")
		}
		if p.format, err = session.JSONSchemaFormat(js.Schema, js.Strict != nil && *js.Strict); err != nil {
			return badRequest("response_format.json_schema.schema", "response_format.json_schema.schema: %s", strings.TrimPrefix(err.Error(), "grammar: "))
		}
	default:
		return badRequest("response_format.type", "response_format.type must be \"text\", \"json_object\" or \"json_schema\", got %q", rf.Type)
	}
	if err != nil {
		return &apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: err.Error()}
	}
	return nil
}
