package serve

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/session"
)

// logprobs is a model hook that keeps the last few positions' logits, so
// that each token's log-probability and its top alternatives can be read
// once the token is known. They are the model's own distribution (the
// softmax of the logits at temperature 1), as OpenAI reports them.
type logprobs struct {
	top   int
	bytes func(int32) []byte
	ring  [4]lpSlot
}

type lpSlot struct {
	pos    int
	ok     bool
	lse    float64 // log Σ exp(logit)
	logits []float32
}

// lpEntry is one token's log-probability and its top alternatives.
type lpEntry struct {
	ID      int32
	Logprob float64
	Top     []lpAlt
	// Offset is where the token's text starts in the prompt and reply
	// together: set as the token is generated, so that a stream's chunks
	// and the whole response agree.
	Offset int
}

type lpAlt struct {
	ID      int32
	Logprob float64
}

func newLogprobs(top int, bytes func(int32) []byte) *logprobs {
	return &logprobs{top: top, bytes: bytes}
}

// Logits implements model.LogitsHook.
func (l *logprobs) Logits(pos int, logits []float32) {
	s := &l.ring[pos%len(l.ring)]
	s.pos, s.ok = pos, true
	s.logits = append(s.logits[:0], logits...)
	m := float32(math.Inf(-1))
	for _, v := range logits {
		m = max(m, v)
	}
	var sum float64
	for _, v := range logits {
		sum += math.Exp(float64(v - m))
	}
	s.lse = float64(m) + math.Log(sum)
}

// entry is the token id chosen by the logits at pos.
func (l *logprobs) entry(pos int, id int32) (lpEntry, bool) {
	s := &l.ring[pos%len(l.ring)]
	if !s.ok || s.pos != pos || int(id) >= len(s.logits) {
		return lpEntry{}, false
	}
	e := lpEntry{ID: id, Logprob: float64(s.logits[id]) - s.lse}
	if l.top > 0 {
		// A partial selection: the vocabulary is large and top is small.
		top := make([]lpAlt, 0, l.top+1)
		for i, v := range s.logits {
			if len(top) == l.top && v <= float32(top[len(top)-1].Logprob) {
				continue
			}
			j, _ := slices.BinarySearchFunc(top, v, func(a lpAlt, v float32) int {
				if float32(a.Logprob) >= v {
					return -1
				}
				return 1
			})
			top = slices.Insert(top, j, lpAlt{ID: int32(i), Logprob: float64(v)})
			if len(top) > l.top {
				top = top[:l.top]
			}
		}
		for i := range top {
			top[i].Logprob -= s.lse
		}
		e.Top = top
	}
	return e, true
}

// logprobsJSON is the choice's "logprobs": chat's content list or the
// completions' parallel arrays.
func (o *output) logprobsJSON(entries []lpEntry) any {
	if !o.p.logprobs {
		return nil
	}
	b := o.conv.Probe().TokenBytes
	if o.p.chat {
		content := make([]any, 0, len(entries))
		for _, e := range entries {
			top := make([]any, 0, len(e.Top))
			for _, a := range e.Top {
				top = append(top, map[string]any{"token": string(b(a.ID)), "logprob": a.Logprob, "bytes": byteInts(b(a.ID))})
			}
			content = append(content, map[string]any{"token": string(b(e.ID)), "logprob": e.Logprob, "bytes": byteInts(b(e.ID)), "top_logprobs": top})
		}
		return map[string]any{"content": content, "refusal": nil}
	}
	tokens, lps, tops, offs := []string{}, []float64{}, []any{}, []int{}
	for _, e := range entries {
		t := string(b(e.ID))
		tokens, lps, offs = append(tokens, t), append(lps, e.Logprob), append(offs, e.Offset)
		top := map[string]float64{}
		for _, a := range e.Top {
			top[string(b(a.ID))] = a.Logprob
		}
		tops = append(tops, top)
	}
	return map[string]any{"tokens": tokens, "token_logprobs": lps, "top_logprobs": tops, "text_offset": offs}
}

// byteInts is b as JSON numbers (OpenAI's "bytes"), not base64.
func byteInts(b []byte) []int {
	out := make([]int, len(b))
	for i, c := range b {
		out[i] = int(c)
	}
	return out
}

// route records the routing of the token the logits at pos chose, for
// isagi.experts: per MoE layer (in the order of layers), the experts
// chosen, highest first, and their mixing weights. A token whose routing
// is no longer held (it cannot be: it was computed this step) is null.
func (o *output) route(pos int) {
	var tok any
	if rs := o.conv.Experts().RouteAt(pos, nil); rs != nil {
		if o.layers == nil {
			for _, r := range rs {
				o.layers = append(o.layers, r.Layer)
			}
		}
		ids := make([][]int32, len(rs))
		ws := make([][]float64, len(rs))
		for i, r := range rs {
			ids[i] = r.Experts
			ws[i] = make([]float64, len(r.Weights))
			for j, w := range r.Weights {
				ws[i][j] = round(float64(w), 4)
			}
		}
		tok = map[string]any{"ids": ids, "w": ws}
	}
	o.routes = append(o.routes, tok)
	o.pending = append(o.pending, tok)
}

// expertsJSON is the response's isagi.experts: the MoE layers, the experts
// each token uses, the switched-off list, and every generated token's
// routing.
func (o *output) expertsJSON() map[string]any {
	layers := o.layers
	if layers == nil {
		layers = []int{}
	}
	routes := o.routes
	if routes == nil {
		routes = []any{}
	}
	x := map[string]any{"layers": layers, "tokens": routes}
	var m session.ExpertMap
	if o.conv.Experts().Map(&m) == nil {
		x["n_expert"], x["n_expert_used"] = m.Experts, m.Used
		if len(m.Off) > 0 {
			off := make([]string, len(m.Off))
			for i, r := range m.Off {
				off[i] = r.String()
			}
			x["off"] = off
		}
	}
	return x
}

// stopper finds OpenAI stop sequences in the streamed text: it holds back
// text that may be the start of one, and ends the reply before the first
// one found (which is not returned).
type stopper struct {
	stops []string
	full  strings.Builder
	sent  int
	cut   int // where the reply ends, once a stop is hit (-1: none)
}

func newStopper(stops []string) *stopper { return &stopper{stops: stops, cut: -1} }

// add appends piece and returns the text now safe to send, and whether a
// stop sequence was hit.
func (s *stopper) add(piece string) (string, bool) {
	s.full.WriteString(piece)
	full := s.full.String()
	if len(s.stops) == 0 {
		out := full[s.sent:]
		s.sent = len(full)
		return out, false
	}
	first := -1
	for _, st := range s.stops {
		from := max(0, s.sent-len(st))
		if i := strings.Index(full[from:], st); i >= 0 && (first < 0 || from+i < first) {
			first = from + i
		}
	}
	if first >= 0 {
		s.cut = first
		out := ""
		if first > s.sent {
			out = full[s.sent:first]
		}
		s.sent = max(s.sent, first)
		return out, true
	}
	// Hold back the longest tail that begins a stop sequence.
	safe := len(full)
	for _, st := range s.stops {
		for k := min(len(st)-1, len(full)-s.sent); k > 0; k-- {
			if strings.HasSuffix(full, st[:k]) {
				safe = min(safe, len(full)-k)
				break
			}
		}
	}
	out := full[s.sent:safe]
	s.sent = safe
	return out, false
}

// flush returns what was held back when the reply ended without a stop.
func (s *stopper) flush() string {
	if s.cut >= 0 {
		return ""
	}
	full := s.full.String()
	out := full[s.sent:]
	s.sent = len(full)
	return out
}

// text is the reply, cut before a stop sequence hit.
func (s *stopper) text() string {
	full := s.full.String()
	if s.cut >= 0 {
		return full[:s.cut]
	}
	return full
}

// readingJSON is a TEH reading, overall and per category.
func (s *Server) readingJSON(r geometry.Reading) map[string]any {
	cats := map[string]float64{}
	if p := s.root.Geometry().Profile(); p != nil {
		for i, name := range p.CategoryNames() {
			if i < r.N {
				cats[name] = round(float64(r.Cat[i]), 4)
			}
		}
	}
	return map[string]any{"overall": round(float64(r.Overall), 4), "categories": cats}
}

// tauJSON is the thresholds the TEH readings are compared with.
func (s *Server) tauJSON() map[string]any {
	p := s.root.Geometry().Profile()
	cats := map[string]float64{}
	for _, c := range p.Categories {
		cats[c.Name] = round(c.Gauge.ROC.Tau, 4)
	}
	return map[string]any{"overall": round(p.Overall.ROC.Tau, 4), "categories": cats}
}

func (s *Server) sessionPath(id string) string { return filepath.Join(s.cfg.SessionDir, id+".miku") }

// maxEmbedInputs bounds one embeddings request.
const maxEmbedInputs = 256

// embeddings is POST /v1/embeddings: the mean final hidden state of each
// input, unit length (session.Embedding).
func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	var req embeddingsRequest
	if !s.readPost(w, r, &req) {
		return
	}
	if e := s.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	switch {
	case len(req.Input) == 0:
		writeError(w, badRequest("input", "input must be a string or a non-empty array of strings"))
		return
	case len(req.Input) > maxEmbedInputs:
		writeError(w, badRequest("input", "input holds %d texts; at most %d per request", len(req.Input), maxEmbedInputs))
		return
	case req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64":
		writeError(w, badRequest("encoding_format", "encoding_format must be \"float\" or \"base64\", not %q", req.EncodingFormat))
		return
	}
	release, ok := s.admitOrAnswer(w, r)
	if !ok {
		return
	}
	defer release()
	data := make([]any, 0, len(req.Input))
	total := 0
	for i, text := range req.Input {
		if s.turn.acquire(r.Context()) != nil {
			clientGone(w, "while waiting for the model")
			return
		}
		vec, n, err := s.root.Probe().Embedding(r.Context(), text, 0)
		s.turn.release()
		if err != nil {
			if r.Context().Err() != nil {
				clientGone(w, fmt.Sprintf("after %d of its %d embeddings", i, len(req.Input)))
				return
			}
			writeError(w, badRequest(fmt.Sprintf("input[%d]", i), "input[%d]: %v", i, err))
			return
		}
		total += n
		var emb any = vec
		if req.EncodingFormat == "base64" {
			buf := make([]byte, 4*len(vec))
			for j, v := range vec {
				binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(v))
			}
			emb = base64.StdEncoding.EncodeToString(buf)
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": emb})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": s.cfg.ModelID,
		"usage": map[string]any{"prompt_tokens": total, "total_tokens": total}})
}

// hidden is POST /isagi/v1/hidden: the residual stream of a text after the
// layers asked, or its UGT coordinates, within MaxHidden values.
func (s *Server) hidden(w http.ResponseWriter, r *http.Request) {
	var req hiddenRequest
	if !s.readPost(w, r, &req) {
		return
	}
	if req.Model != "" {
		if e := s.checkModel(req.Model); e != nil {
			writeError(w, e)
			return
		}
	}
	if req.Text == "" {
		writeError(w, badRequest("text", "text is required"))
		return
	}
	width := s.root.Probe().Dim() * len(req.Layers)
	if req.UGT {
		p := s.root.Geometry().Profile()
		if p == nil {
			writeError(w, badRequest("ugt", "ugt: %v", session.ErrNoProfile))
			return
		}
		if len(req.Layers) > 0 {
			writeError(w, badRequest("layers", "give layers or ugt, not both: UGT coordinates are read at the profile's probe layer %d", p.Layer))
			return
		}
		width = p.K
	} else if len(req.Layers) == 0 {
		writeError(w, badRequest("layers", "layers is required: the blocks to read (0..%d), -1 for the final norm; or ugt: true", s.root.Probe().Layers()-1))
		return
	}
	if len(req.Layers) > s.root.Probe().Layers()+1 {
		writeError(w, badRequest("layers", "layers holds %d entries; the model has %d blocks and the final norm", len(req.Layers), s.root.Probe().Layers()))
		return
	}
	maxTok := s.cfg.MaxHidden / max(width, 1)
	if maxTok < 1 {
		writeError(w, badRequest("layers", "one token at these layers is %d values, over the server's cap of %d: ask for fewer layers", width, s.cfg.MaxHidden))
		return
	}
	release, ok := s.admitOrAnswer(w, r)
	if !ok {
		return
	}
	defer release()
	if s.turn.acquire(r.Context()) != nil {
		clientGone(w, "while waiting for the model")
		return
	}
	resp := map[string]any{"object": "isagi.hidden", "model": s.cfg.ModelID}
	var err error
	if req.UGT {
		var coords [][]float64
		var layer int
		var tokens []int32
		coords, layer, tokens, err = s.root.Probe().UGTCoords(r.Context(), req.Text, maxTok)
		if err == nil {
			resp["tokens"], resp["pieces"] = tokens, s.pieces(tokens)
			resp["ugt"] = map[string]any{"layer": layer, "k": s.root.Geometry().Profile().K, "coords": coords}
		}
	} else {
		var h session.Hidden
		h, err = s.root.Probe().Hidden(r.Context(), req.Text, req.Layers, maxTok)
		if err == nil {
			resp["tokens"], resp["pieces"] = h.Tokens, s.pieces(h.Tokens)
			layers := make([]any, len(h.Layers))
			for i, l := range h.Layers {
				layers[i] = map[string]any{"layer": l, "states": h.States[i]}
			}
			resp["dim"], resp["layers"] = s.root.Probe().Dim(), layers
		}
	}
	s.turn.release()
	if err != nil {
		if r.Context().Err() != nil {
			clientGone(w, "while its states were read")
			return
		}
		status := http.StatusBadRequest
		if errors.Is(err, session.ErrNoProfile) {
			status = http.StatusConflict
		}
		writeError(w, &apiError{Status: status, Type: "invalid_request_error", Message: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) pieces(ids []int32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(s.root.Probe().TokenBytes(id))
	}
	return out
}
