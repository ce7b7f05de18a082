// Package bench is `isagi bench`: prefill and decode speed, the weight
// bandwidth decoding reaches against the machine's, and with --draft the
// speculative decoder's speed and acceptance.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/engine/backend/remote"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/store"
)

// Main is `isagi bench`: prefill and decode speed, and the memory bandwidth
// decoding reaches.
func Main(env base.Env, args []string) error {
	fs := env.FlagSet("bench", usageHead, usageTail)
	mf := base.ModelFlags{Version: env.Version}
	mf.Register(fs)
	defer mf.Dev.Close()
	promptLen := fs.Int("p", 128, "prompt tokens to prefill")
	genLen := fs.Int("n", 64, "tokens to decode")
	asJSON := fs.Bool("json", false, "print one JSON object (prefill_tok_s, decode_tok_s, …)")
	noProbe := fs.Bool("no-probe", false, "skip the memory-bandwidth probe")
	pinThreads := fs.Bool("pin-threads", false, "run every step on all the threads (the pool otherwise runs a step on one thread while that measures faster: under contention for the cores)")
	var df base.DraftFlags
	df.Register(fs)
	promptFile := fs.String("prompt-file", "", "with --draft: text whose lines are the prompts (the first -p tokens of each; held-out text measures acceptance honestly), instead of random token ids")
	prompts := fs.Int("prompts", 8, "with --draft: how many prompts (lines of --prompt-file, or random prompts) to decode, plainly and speculatively in turn")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return base.ArgsError(fs, "bench takes no arguments, got %q", fs.Args())
	}
	ds, err := df.Spec()
	if err != nil {
		return err
	}
	if ds == nil && (*promptFile != "" || *prompts != 8) {
		return base.Usagef("--prompt-file and --prompts are for --draft")
	}
	if *prompts < 1 {
		return base.Usagef("--prompts %d: want at least 1", *prompts)
	}
	mf.CtxDefault = *promptLen + *genLen
	vs, err := mf.Variants()
	if err != nil {
		return err
	}
	if vs != nil && ds != nil {
		return base.Usagef("--gauge, --sink-channels, --sink-bypass and --kv-proj are measured without --draft")
	}
	f, tok, m, st, err := mf.Open()
	if err != nil {
		return err
	}
	defer m.Close()

	if ds != nil {
		return benchDraft(&mf, &df, f, m, tok, st, *promptFile, *prompts, *promptLen, *genLen, *asJSON, env.Stdout)
	}
	// One warm-up pass maps the weights in and grows every buffer, with a
	// prompt as long as the measured one up to 512 tokens: after an
	// 8-token warm-up the first 128-token prefill measured 1.27× slower
	// than the second (llama-bench warms up with the measured test too).
	// Its 16 decode steps are enough for the pool to have timed both of
	// its modes once (Pool.Mark), a cost a process pays once, not per
	// generation.
	if _, err := generate.Bench(context.Background(), st, tok.BOS(), min(*promptLen, 512), min(*genLen, 16)); err != nil {
		return err
	}
	var variants []variantRow
	if vs != nil {
		if variants, err = benchVariants(&mf, vs, f, m, tok, st, *promptLen, *genLen); err != nil {
			return err
		}
	}
	var tel gpu.Source
	if n, err := gpu.NewNVML(); err == nil {
		defer n.Close()
		tel = n
	}
	// On rpc-servers the report adds what decoding a token costs on the
	// network: the cluster's counters from the first token (where decode
	// tok/s starts counting) to the end.
	var cluster *remote.Cluster
	var first func()
	var before remote.Stats
	if rb, ok := st.Backend().(*remote.Backend); ok {
		cluster = rb.Cluster()
		first = func() { before = cluster.Stats() }
	}
	var pool *tensor.Pool
	var par0, solo0 int
	if k := st.Kernels(); k != nil {
		pool = k.Pool()
		if *pinThreads {
			pool.SetAdaptive(false)
		}
		par0, solo0 = pool.Steps()
	}
	stats, power, err := benchMetered(context.Background(), st, tok.BOS(), *promptLen, *genLen, tel, first)
	if err != nil {
		return err
	}
	r := benchReport{
		Model:       mf.Label(),
		Arch:        m.Arch,
		WeightType:  m.WeightType(),
		Backend:     st.Backend().Name(),
		DeviceNote:  mf.Dev.Note(),
		PromptToks:  stats.PromptTokens,
		DecodeToks:  stats.Generated,
		PrefillTokS: stats.PrefillTokPerSec(),
		DecodeTokS:  stats.DecodeTokPerSec(),
		TTFTms:      float64(stats.TimeToFirst.Microseconds()) / 1000,
	}
	if k := st.Kernels(); k != nil {
		r.Threads, r.Kernels, r.PrefillKernels = k.Pool().Size(), k.Path(), k.PrefillPath()
		par, solo := pool.Steps()
		r.ParallelSteps, r.SoloSteps = par-par0, solo-solo0
	}
	if cluster != nil {
		r.Servers = cluster.Servers(m.Layers)
		r.RPC = rpcPerToken(before, cluster.Stats(), stats.Generated-1)
	}
	r.setPower(power)
	// Under GRC a token reads the compressed matrices instead of the ones
	// they replace: count those bytes, not the file's.
	weights := m.WeightBytes()
	if g := grc.Of(st); g != nil {
		weights += g.BytesAfter - g.BytesBefore
		r.GRC = g.String()
		r.GRCRanks = g.Plan.Ranks
		r.GRCWeightRatio = float64(weights) / float64(m.WeightBytes())
	}
	r.WeightMB = float64(weights) / 1e6
	if r.Experts = m.ExpertsSummary(); r.Experts != "" {
		// A mixture keeps every expert mapped but a token reads its
		// chosen ones: the bandwidth figures count what it reads.
		var held int64
		for i := range f.Tensors {
			held += int64(f.Tensors[i].Size)
		}
		r.HeldMB = float64(held) / 1e6
	}
	r.KVType, r.KVBytes = st.KVType().String(), st.KVEntryBytes()
	r.Variants = variants
	r.WeightGBs = r.DecodeTokS * float64(weights) / 1e9
	// The triad probe measures the host's memory: it is the decode's
	// roofline on the CPU only (docs/gpu.md has the GPU's).
	probe := !*noProbe && st.Kernels() != nil
	if probe {
		bw, err := tensor.ProbeBandwidth(st.Kernels().Pool(), 256<<20, time.Second)
		if err != nil {
			return err
		}
		r.TriadGBs = bw.Triad / 1e9
		r.RatioToTriad = r.WeightGBs / r.TriadGBs
		r.ReadGBs = bw.Read / 1e9
	}
	return r.write(env.Stdout, *asJSON, probe)
}

// write prints the report as JSON, or for a person; probe says whether the
// bandwidth probe ran.
func (r benchReport) write(w io.Writer, asJSON, probe bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	fmt.Fprintf(w, "model        %s (%s, %s, %.1f MB of weights per token)\n", r.Model, r.Arch, r.WeightType, r.WeightMB)
	if r.Experts != "" {
		fmt.Fprintf(w, "experts      %s: a token reads %.1f of the %.1f MB held\n", r.Experts, r.WeightMB, r.HeldMB)
	}
	if r.GRC != "" {
		fmt.Fprintf(w, "compression  %s\n", r.GRC)
	}
	fmt.Fprintf(w, "backend      %s\n", r.Backend)
	if r.SoloSteps > 0 {
		fmt.Fprintf(w, "threads      %d of %d timed steps ran on one thread (it measured faster: the cores are busy)\n", r.SoloSteps, r.SoloSteps+r.ParallelSteps)
	}
	writeServers(w, r.Servers)
	if r.DeviceNote != "" {
		fmt.Fprintf(w, "device       %s\n", r.DeviceNote)
	}
	fmt.Fprintf(w, "prefill      %d tokens, %.1f tok/s\n", r.PromptToks, r.PrefillTokS)
	fmt.Fprintf(w, "decode       %d tokens, %.1f tok/s (first token after %.0f ms)\n", r.DecodeToks, r.DecodeTokS, r.TTFTms)
	if t := r.RPC; t != nil {
		fmt.Fprintf(w, "rpc          %.1f round trips · %s sent · %s received · %.1f recomputes per decoded token\n",
			t.RoundTrips, store.HumanBytes(int64(math.Round(t.SentBytes))), store.HumanBytes(int64(math.Round(t.ReceivedBytes))), t.Recomputes)
	}
	fmt.Fprintf(w, "weights      %.2f GB/s while decoding\n", r.WeightGBs)
	if probe {
		fmt.Fprintf(w, "memory       %.2f GB/s (triad), %.2f GB/s (read); decode reaches %.0f%% of the triad\n", r.TriadGBs, r.ReadGBs, 100*r.RatioToTriad)
	}
	if r.TokensPerJoule != nil {
		fmt.Fprintf(w, "energy       %s at %.1f W mean GPU power over the decode (%d samples)\n", gpu.FormatTokensPerJoule(*r.TokensPerJoule), *r.PowerW, r.PowerSamples)
	}
	fmt.Fprintf(w, "kv cache     %s per position (%s)\n", store.HumanBytes(r.KVBytes), r.KVType)
	writeVariants(w, r.Variants)
	return nil
}

// benchMetered is generate.Bench with tel (nil: no telemetry) sampled by a
// gpu.Meter throughout, and the GPU's mean power over the decode — from
// the first token to the end, the span decode tok/s is measured over —
// worked out from the samples. Bench runs prefill and decode in one call,
// so the window is placed afterwards from its timings; the Meter samples
// once at the start and once at the end, so even a decode shorter than
// its interval is bracketed by two samples. first, when not nil, is called
// as the first token is sampled (see benchRun).
func benchMetered(ctx context.Context, st *model.State, bos int32, promptLen, genLen int, tel gpu.Source, first func()) (generate.Stats, gpu.Window, error) {
	if tel == nil {
		stats, err := benchRun(ctx, st, bos, promptLen, genLen, first)
		return stats, gpu.Window{}, err
	}
	m := gpu.StartMeter(tel, nil, 0)
	began := time.Now()
	stats, err := benchRun(ctx, st, bos, promptLen, genLen, first)
	m.Stop()
	if err != nil {
		return stats, gpu.Window{}, err
	}
	from := began.Add(stats.TimeToFirst)
	return stats, m.Window(from, from.Add(stats.DecodeDuration)), nil
}

// benchRun is generate.Bench, calling first (when not nil) as the first
// token is sampled: the end of the prefill, where decode tok/s starts
// counting.
func benchRun(ctx context.Context, st *model.State, bos int32, promptLen, genLen int, first func()) (generate.Stats, error) {
	if first == nil {
		return generate.Bench(ctx, st, bos, promptLen, genLen)
	}
	called := false
	return generate.BenchEach(ctx, st, bos, promptLen, genLen, func(int32) {
		if !called {
			called = true
			first()
		}
	})
}

// rpcTraffic is what the rpc-servers were sent and answered per decoded
// token (remote.Stats over the decode, divided by its steps).
type rpcTraffic struct {
	Requests      float64 `json:"requests"`
	RoundTrips    float64 `json:"round_trips"`
	SentBytes     float64 `json:"sent_bytes"`
	ReceivedBytes float64 `json:"received_bytes"`
	Graphs        float64 `json:"graphs"`
	Recomputes    float64 `json:"recomputes"`
}

// rpcPerToken is the traffic from before to after over steps decode
// steps, or nil when there were none. A decode of n tokens runs n−1
// steps: the first token comes from the prompt's logits.
func rpcPerToken(before, after remote.Stats, steps int) *rpcTraffic {
	if steps < 1 {
		return nil
	}
	n := float64(steps)
	return &rpcTraffic{
		Requests:      float64(after.Requests-before.Requests) / n,
		RoundTrips:    float64(after.RoundTrips-before.RoundTrips) / n,
		SentBytes:     float64(after.Sent-before.Sent) / n,
		ReceivedBytes: float64(after.Received-before.Received) / n,
		Graphs:        float64(after.Graphs-before.Graphs) / n,
		Recomputes:    float64(after.Recomputes-before.Recomputes) / n,
	}
}

// writeServers writes a line for each rpc-server that ran the model.
func writeServers(w io.Writer, servers []remote.ServerInfo) {
	layers := 0
	for _, s := range servers {
		layers += s.LayersCount
	}
	for _, l := range base.ServerLines(servers, layers) {
		fmt.Fprintf(w, "server       %s\n", l)
	}
}

// setPower fills the power figures from the decode's window: absent (not
// 0) without telemetry or a power reading.
func (r *benchReport) setPower(w gpu.Window) {
	tpj, ok := w.TokensPerJoule(r.DecodeTokS)
	if !ok {
		return
	}
	p := w.MeanPowerW
	r.PowerW, r.TokensPerJoule, r.PowerSamples = &p, &tpj, w.Samples
}

type benchReport struct {
	Model      string `json:"model"`
	Arch       string `json:"arch"`
	WeightType string `json:"weight_type"`
	// Backend is what ran the model ("cpu avx2 × 2 threads", "cuda NVIDIA
	// H100 …"); DeviceNote says why the CPU ran it when no GPU could.
	Backend    string `json:"backend"`
	DeviceNote string `json:"device_note,omitempty"`
	Threads    int    `json:"threads,omitempty"`
	Kernels    string `json:"kernels,omitempty"`
	// PrefillKernels names the batched kernels ("avx512vnni+amx" where
	// some types' prefill runs on AMX tiles).
	PrefillKernels string `json:"prefill_kernels,omitempty"`
	// ParallelSteps and SoloSteps count the measured steps the pool timed
	// on all its threads and on one (tensor.Pool.Mark).
	ParallelSteps int     `json:"parallel_steps,omitempty"`
	SoloSteps     int     `json:"solo_steps,omitempty"`
	PromptToks    int     `json:"prompt_tokens"`
	DecodeToks    int     `json:"decode_tokens"`
	PrefillTokS   float64 `json:"prefill_tok_s"`
	DecodeTokS    float64 `json:"decode_tok_s"`
	TTFTms        float64 `json:"time_to_first_token_ms"`
	WeightMB      float64 `json:"weight_mb_per_token"`
	WeightGBs     float64 `json:"weight_gb_s"`
	TriadGBs      float64 `json:"triad_gb_s,omitempty"`
	RatioToTriad  float64 `json:"ratio_to_triad,omitempty"`
	// ReadGBs is the probe's read-only stream (a sum over one array): a
	// decode reads its weights and writes almost nothing, so this, not
	// the triad, is the bandwidth it can reach.
	ReadGBs float64 `json:"read_gb_s,omitempty"`
	// Experts describes a mixture of experts (model.Config.ExpertsSummary)
	// and HeldMB is then every weight's bytes, all experts mapped, against
	// WeightMB's chosen experts only.
	Experts string  `json:"experts,omitempty"`
	HeldMB  float64 `json:"weight_mb_held,omitempty"`
	// GRC describes the compression in use (--rank), GRCRanks its rank per
	// block and GRCWeightRatio the bytes a token reads relative to the
	// uncompressed model.
	GRC            string  `json:"grc,omitempty"`
	GRCRanks       []int   `json:"grc_ranks,omitempty"`
	GRCWeightRatio float64 `json:"grc_weight_ratio,omitempty"`
	// PowerW is the GPU's mean draw over the decode (NVML, time-weighted
	// over PowerSamples samples) and TokensPerJoule is DecodeTokS over
	// it; both are absent without GPU telemetry. While the model runs on
	// the CPU they measure the GPU beside it, not the decode's energy.
	PowerW         *float64 `json:"power_w,omitempty"`
	TokensPerJoule *float64 `json:"tokens_per_joule,omitempty"`
	PowerSamples   int      `json:"power_samples,omitempty"`
	// Servers are the rpc-servers that ran the model (--rpc), with the
	// layers each ran; RPC is their traffic per decoded token.
	Servers []remote.ServerInfo `json:"servers,omitempty"`
	RPC     *rpcTraffic         `json:"rpc_per_token,omitempty"`
	// KVType is how the KV cache stores keys and values (--kv-type) and
	// KVBytes its bytes per position in that type; Variants the
	// mechanisms' variants measured side by side (--gauge …).
	KVType   string       `json:"kv_type"`
	KVBytes  int64        `json:"kv_bytes_per_token"`
	Variants []variantRow `json:"variants,omitempty"`
}

// benchDraft is bench --draft: the same prompts decoded greedily, plainly
// and speculatively in turn (generate.BenchSpec), after one warm-up pair.
func benchDraft(mf *base.ModelFlags, df *base.DraftFlags, f *gguf.File, m *model.Model, tok *tokenizer.Tokenizer, st *model.State,
	promptFile string, nPrompts, promptLen, genLen int, asJSON bool, stdout io.Writer) error {
	prompts, err := benchPrompts(tok, m.Vocab, promptFile, nPrompts, promptLen)
	if err != nil {
		return err
	}
	p := sample.Params{} // greedy: outputs are compared token for token
	dr, err := mf.Drafter(df, f, tok, m, st, p)
	if err != nil {
		return err
	}
	defer dr.Cleanup()
	// Warm up both paths (weights mapped in, buffers grown) with a
	// throwaway drafter, so that the measured drafter (and its online
	// basis) starts fresh on the measured prompts.
	warm := [][]int32{prompts[len(prompts)-1][:min(8, len(prompts[len(prompts)-1]))]}
	if _, err := generate.BenchSpec(context.Background(), st, p, warm, min(genLen, 8), generate.SpecOptions{Drafter: generate.NewNGramDrafter(), Gamma: 2}); err != nil {
		return err
	}
	r, err := generate.BenchSpec(context.Background(), st, p, prompts, genLen, dr.Opts)
	if err != nil {
		return err
	}
	rep := specReport{
		Model: mf.Label(), Arch: m.Arch, WeightType: m.WeightType(),
		Drafter: r.Spec.Drafter, GammaFixed: df.N, OnlineBasis: df.Online,
		Prompts: r.Prompts, PromptToks: promptLen, DecodeToks: genLen,
		PlainTokS: r.PlainTokS, SpecTokS: r.SpecTokS, Ratio: r.Ratio,
		Alpha: r.Alpha, AlphaFirstHalf: r.AlphaFirst, AlphaLastHalf: r.AlphaLast,
		TokensPerStep: r.Spec.TokensPerStep(), Steps: r.Spec.Steps, Drafted: r.Spec.Drafted, Accepted: r.Spec.Accepted,
		PlainSteps: r.Spec.Plain, LastGamma: r.Spec.Gamma, Predicted: r.Spec.Predicted, Off: r.Spec.Off, Note: r.Spec.Note,
		Mismatches: r.Mismatches,
		VerifyCost: r.VerifyCost, DraftCost: r.DraftCost, BreakEven: r.BreakEven,
	}
	if k := st.Kernels(); k != nil {
		rep.Threads, rep.Kernels = k.Pool().Size(), k.Path()
	}
	rep.Backend = st.Backend().Name()
	if rb, ok := st.Backend().(*remote.Backend); ok {
		rep.Servers = rb.Cluster().Servers(m.Layers)
	}
	if dr.Model != nil {
		rep.BasisUpdates = dr.Model.Updates()
	}
	// Greedy speculative decoding must reproduce plain decoding: a
	// difference is a bug, not a measurement, and fails the command after
	// the report.
	var mismatch error
	if r.Mismatches > 0 {
		mismatch = fmt.Errorf("speculative output differed from plain decoding on %d of %d prompts", r.Mismatches, r.Prompts)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
		return mismatch
	}
	fmt.Fprintf(stdout, "model        %s (%s, %s)\n", rep.Model, rep.Arch, rep.WeightType)
	fmt.Fprintf(stdout, "backend      %s\n", rep.Backend)
	writeServers(stdout, rep.Servers)
	g := "live"
	if df.N > 0 {
		g = strconv.Itoa(df.N)
	}
	fmt.Fprintf(stdout, "drafter      %s, γ %s, online basis %v\n", rep.Drafter, g, df.Online)
	fmt.Fprintf(stdout, "prompts      %d × %d tokens, %d decoded each\n", rep.Prompts, promptLen, genLen)
	fmt.Fprintf(stdout, "plain        %.1f tok/s\n", rep.PlainTokS)
	fmt.Fprintf(stdout, "speculative  %.1f tok/s (%.2f× plain)\n", rep.SpecTokS, rep.Ratio)
	fmt.Fprintf(stdout, "acceptance   α %.3f (first half %.3f, last half %.3f); %.2f tokens per verifier step; %d steps, %d plain\n",
		rep.Alpha, rep.AlphaFirstHalf, rep.AlphaLastHalf, rep.TokensPerStep, rep.Steps, rep.PlainSteps)
	if rep.VerifyCost > 0 {
		fmt.Fprintf(stdout, "costs        a verifying pass %.2f plain steps, a drafted token %.2f; break-even α %.2f\n", rep.VerifyCost, rep.DraftCost, rep.BreakEven)
	}
	if rep.BasisUpdates > 0 {
		fmt.Fprintf(stdout, "online basis %d updates\n", rep.BasisUpdates)
	}
	if rep.Note != "" {
		fmt.Fprintf(stdout, "note         %s\n", rep.Note)
	}
	return mismatch
}

// benchPrompts are the prompts of bench --draft: BOS and the first
// promptLen−1 tokens of each non-empty line of file (lines too short are
// skipped), or random ids from a fixed seed without a file.
func benchPrompts(tok *tokenizer.Tokenizer, vocab int, file string, n, promptLen int) ([][]int32, error) {
	var out [][]int32
	if file == "" {
		rng := rand.New(rand.NewPCG(1, 2))
		for range n {
			p := make([]int32, promptLen)
			p[0] = tok.BOS()
			for i := 1; i < promptLen; i++ {
				p[i] = int32(rng.IntN(vocab))
			}
			out = append(out, p)
		}
		return out, nil
	}
	b, err := regfile.ReadRegular(file, base.MaxTextBytes)
	if err != nil {
		return nil, fmt.Errorf("--prompt-file: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if len(out) == n {
			break
		}
		ids, err := tok.Encode(strings.TrimSpace(line), tokenizer.EncodeOptions{AddSpecial: true})
		if err != nil {
			return nil, fmt.Errorf("--prompt-file: %w", err)
		}
		if len(ids) >= promptLen {
			out = append(out, ids[:promptLen])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--prompt-file: no line of %s has %d tokens", file, promptLen)
	}
	return out, nil
}

// specReport is bench --draft --json.
type specReport struct {
	Model          string  `json:"model"`
	Arch           string  `json:"arch"`
	WeightType     string  `json:"weight_type"`
	Backend        string  `json:"backend"`
	Threads        int     `json:"threads"`
	Kernels        string  `json:"kernels"`
	Drafter        string  `json:"drafter"`
	GammaFixed     int     `json:"draft_n"` // 0: chosen live
	OnlineBasis    bool    `json:"online_basis"`
	Prompts        int     `json:"prompts"`
	PromptToks     int     `json:"prompt_tokens"`
	DecodeToks     int     `json:"decode_tokens"`
	PlainTokS      float64 `json:"plain_decode_tok_s"`
	SpecTokS       float64 `json:"spec_decode_tok_s"`
	Ratio          float64 `json:"speed_ratio"`
	Alpha          float64 `json:"alpha"`
	AlphaFirstHalf float64 `json:"alpha_first_half"`
	AlphaLastHalf  float64 `json:"alpha_last_half"`
	TokensPerStep  float64 `json:"tokens_per_verifier_step"`
	Steps          int     `json:"verifier_steps"`
	Drafted        int     `json:"drafted"`
	Accepted       int     `json:"accepted"`
	PlainSteps     int     `json:"plain_steps"`
	LastGamma      int     `json:"last_gamma"`
	Predicted      float64 `json:"predicted_ratio"`
	Off            bool    `json:"off"`
	Note           string  `json:"note,omitempty"`
	BasisUpdates   int     `json:"basis_updates,omitempty"`
	Mismatches     int     `json:"mismatches"`
	// VerifyCost and DraftCost are a verifying pass and a drafted token in
	// plain decode steps; BreakEven is the α at which this γ and these
	// costs would break even (1: never).
	VerifyCost float64 `json:"verify_cost_steps"`
	DraftCost  float64 `json:"draft_cost_steps"`
	BreakEven  float64 `json:"break_even_alpha"`
	// Servers are the rpc-servers that ran the model (--rpc).
	Servers []remote.ServerInfo `json:"servers,omitempty"`
}

// usageHead and usageTail frame the flags in `isagi bench --help`.
const (
	usageHead = `Usage: isagi bench (--model FILE.gguf | --demo) [-p 128] [-n 64] [--json] [--threads N] [--kv-type T] [--rank K ...]

Measures prefill and decode speed, the weight bandwidth decoding reaches
(weights streamed per token × tokens per second) and its ratio to this
machine's memory bandwidth (a STREAM triad run in the same process).
Flags:
`
	usageTail = `
With --draft the same prompts are decoded plainly and speculatively in
turn, and the report adds the speculative speed, its ratio to plain
decoding, the acceptance rate α (over all prompts, and over the first and
last half: the online basis should raise the second), tokens per verifier
step and γ (docs/speculative.md). Greedy decoding is used, and each
speculative output is checked against the plain one.

With GPU telemetry (NVML) the report adds the GPU's mean power over the
decode and tokens per joule (decode tok/s over that power; json:
power_w, tokens_per_joule). While the model runs on the CPU these
describe the GPU beside it, not the decode.

On the CPU the pool times decode steps on all its threads and on one, and
keeps the faster: on a machine whose cores are busy with other work, one
thread can be the faster. The report says how many of the timed steps ran
on one thread (json: solo_steps, parallel_steps); --pin-threads turns the
choice off.

With --kv-type f16 or q8_0 the KV cache stores keys and values in half
or about a quarter of the bytes (json: kv_type, kv_bytes_per_token);
attention reads them in place, so the decode at a long context reads
less memory (docs/kvcache.md).

With --rank the model runs GRC-compressed (see --slots and --alloc; the
compression is read from or written to the same cache the TUI uses) and
the weights per token count the compressed matrices.

With --rpc the model runs on llama.cpp's rpc-servers, and the report adds
a line per server — the layers it runs and its memory (json: servers) —
and what decoding a token costs on the network: round trips, bytes sent
and received, graphs recomputed (json: rpc_per_token).

Examples:
  isagi bench --demo --json
  isagi bench --demo --rank 192 --slots qkv,o,ffn --alloc gp
  isagi bench --demo --draft rank:128 --draft-n 4 --prompt-file heldout.txt -p 32 -n 64
`
)
