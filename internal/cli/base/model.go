package base

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/store"
)

// ModelFlags are the flags every command that loads a model shares.
type ModelFlags struct {
	Model   string
	Demo    bool   // --demo: a model embedded in the binary (package demo)
	Which   string // which demo: "kjv" (plain --demo) or "chat" (--demo=chat)
	Threads int
	// Backend makes what runs the model from threads (see
	// session.Options.Backend); nil runs it on the CPU.
	Backend func(threads int) (backend.Backend, error)
	Dev     DeviceFlags // --gpu, --cpu: what sets Backend (device.go)
	Ctx     int
	// KVType is --kv-type: how the KV cache stores keys and values (f32
	// by default; f16 or q8_0), for the commands that register --ctx.
	KVType backend.KVType
	// CtxDefault is the window when --ctx is not given; 0 means the
	// model's, at most 4096 (bench sizes it to its own prompt and reply).
	CtxDefault int
	// GRC compression (docs/grc.md): rank, slot set, allocation, the
	// GP/MCR floor and MCR's calibration text.
	Rank, Slots, Alloc string
	Floor              int
	Calib              string
	Log                io.Writer // notes and build progress (the flag set's output)
	// Version is the binary's version, recorded in the GRC cache's
	// entries and in the sessions the commands open.
	Version string
	// paths is the store's layout (see StorePaths), read once per command
	// so that every file the command touches comes from one store.Paths;
	// pathsErr says why a base directory of it is unknown, if one is.
	paths    *store.Paths
	pathsErr error
	// kv is KV eviction (--kv-keep, --kv-scorer), for the commands that
	// register it; the zero value evicts nothing.
	KV KVFlags
	// Mech is Compression II's mechanisms (--gauge, --sink-channels,
	// --sink-bypass, --kv-proj), registered with the GRC flags.
	Mech MechFlags
	// Steer is llama.cpp's control-vector flags, for the commands that
	// register them (SteerFlags.Register): isagi, run and serve.
	Steer SteerFlags
	// reported holds the labels of the variants whose compression
	// UseVariant has reported on Log.
	reported map[string]bool
}

// Help for the flags that name the model and size the run, shared by every
// command that registers them.
const (
	modelHelp   = "GGUF file or installed model name (default $ISAGI_MODEL, then the config file)"
	demoHelp    = "use a built-in demo model instead of --model: --demo is a tiny KJV text generator, --demo=chat a tiny chat model that refuses harmful requests (neither is an assistant)"
	threadsHelp = "worker threads (default: the number of cores)"
	ctxHelp     = "context window in tokens (default: the model's, at most 4096; above the model's window it is capped, with a warning)"
	kvTypeHelp  = "KV cache type: f32 (the default), f16 (half the memory) or q8_0 (about a quarter; heads must be a multiple of 32 values); f16 and q8_0 run on the CPU backend only"
)

// RegisterSource registers --model and --demo: which model to load.
func (mf *ModelFlags) RegisterSource(fs *flag.FlagSet) {
	fs.StringVar(&mf.Model, "model", "", modelHelp)
	fs.Var(demoFlag{mf}, "demo", demoHelp)
}

// demoFlag is --demo: a boolean flag (plain --demo is the KJV model) that
// also takes a value, --demo=chat or --demo=kjv.
type demoFlag struct{ mf *ModelFlags }

// IsBoolFlag lets --demo stand alone.
func (d demoFlag) IsBoolFlag() bool { return true }

// String is the demo chosen, or "".
func (d demoFlag) String() string {
	if d.mf == nil || !d.mf.Demo {
		return ""
	}
	return d.mf.Which
}

// Set takes true/false (from plain --demo) or a demo's name.
func (d demoFlag) Set(v string) error {
	switch v {
	case "true":
		d.mf.Demo, d.mf.Which = true, "kjv"
		return nil
	case "false":
		d.mf.Demo, d.mf.Which = false, ""
		return nil
	}
	if _, _, ok := demo.Lookup(v); !ok {
		return fmt.Errorf("no demo model %q: want --demo (the KJV text generator) or --demo=chat", v)
	}
	d.mf.Demo, d.mf.Which = true, v
	return nil
}

// demoModel is the chosen demo model's name and bytes.
func (mf *ModelFlags) demoModel() (string, []byte) {
	name, b, ok := demo.Lookup(mf.Which)
	if !ok {
		return demo.Name, demo.Model
	}
	return name, b
}

// RegisterThreads registers the model and --threads: what the geometry
// commands take, which size their own context.
func (mf *ModelFlags) RegisterThreads(fs *flag.FlagSet) {
	mf.RegisterSource(fs)
	fs.IntVar(&mf.Threads, "threads", 0, threadsHelp)
	mf.Dev.Register(fs)
}

// resolveDevice sets the backend from --gpu and --cpu (the GPU when one is
// usable, by default), unless a caller set it already.
func (mf *ModelFlags) resolveDevice() error {
	if mf.Backend != nil {
		return nil
	}
	b, err := mf.Dev.resolve()
	if err != nil {
		return err
	}
	mf.Backend = b
	return nil
}

// RegisterModel registers what the TUI takes: the model, --threads, --ctx
// and --kv-type.
func (mf *ModelFlags) RegisterModel(fs *flag.FlagSet) {
	mf.RegisterThreads(fs)
	fs.IntVar(&mf.Ctx, "ctx", 0, ctxHelp)
	fs.Var(kvTypeFlag{&mf.KVType}, "kv-type", kvTypeHelp)
}

// kvTypeFlag is --kv-type: a backend.KVType by its name.
type kvTypeFlag struct{ t *backend.KVType }

// String is the type's name (f32 for the flag's zero value).
func (f kvTypeFlag) String() string {
	if f.t == nil {
		return backend.KVF32.String()
	}
	return f.t.String()
}

// Set reads f32, f16 or q8_0.
func (f kvTypeFlag) Set(v string) error {
	t, err := backend.ParseKVType(v)
	if err != nil {
		// The flag package names the flag and the value already.
		return errors.New("want f32, f16 or q8_0")
	}
	*f.t = t
	return nil
}

// Register registers every model flag of the scripted commands: the
// model, --threads, --ctx and the GRC compression.
func (mf *ModelFlags) Register(fs *flag.FlagSet) {
	mf.RegisterModel(fs)
	fs.StringVar(&mf.Rank, "rank", "off", "GRC: compress to rank K (1…embedding width; the mean rank per block under --alloc gp|mcr), or off")
	fs.StringVar(&mf.Slots, "slots", "qkv", "with --rank: what to compress: qkv, or a comma-separated set of qkv, o and ffn (gate+up by one basis, down by SVD), or all")
	fs.StringVar(&mf.Alloc, "alloc", "uniform", "with --rank: rank per block: uniform, gp (from the weights' spectra) or mcr (from hidden-state variance over --calib)")
	fs.IntVar(&mf.Floor, "rank-floor", 0, "with --alloc gp|mcr: the least rank a block gets (default ⌈0.55 × embedding width⌉)")
	fs.StringVar(&mf.Calib, "calib", "", "with --alloc mcr or --sink-bypass: calibration text file (default: a short built-in English text)")
	mf.Mech.register(fs)
	mf.Log = fs.Output()
}

// CheckGRC refuses GRC flags that do not parse or that need --rank without
// it, before anything is loaded: mistakes in the command line (exit 2).
func (mf *ModelFlags) CheckGRC() error {
	_, err := mf.grcFlags()
	return err
}

// CheckGRCValues refuses GRC flags whose values do not parse (--rank abc,
// --slots, --alloc), without the rules that tie them to --rank: for run
// --session, whose saved session may hold the rank they refine.
func (mf *ModelFlags) CheckGRCValues() error {
	if mf.Rank != "off" && mf.Rank != "" {
		if _, err := strconv.Atoi(mf.Rank); err != nil {
			return Usagef("--rank %q: want a number or off", mf.Rank)
		}
	}
	if _, err := grc.ParseSlots(mf.Slots); err != nil {
		return UsageError{Err: fmt.Errorf("--slots: %w", err)}
	}
	if _, err := grc.ParseAlloc(mf.Alloc); err != nil {
		return UsageError{Err: fmt.Errorf("--alloc: %w", err)}
	}
	return nil
}

// grcFlags is the compression the GRC flags ask for without its
// calibration text, or nil for --rank off; its errors are usage errors.
func (mf *ModelFlags) grcFlags() (*session.GRCRequest, error) {
	if mf.Rank == "off" || mf.Rank == "" {
		if mf.Slots != "qkv" || mf.Alloc != "uniform" || mf.Floor != 0 || mf.Calib != "" {
			return nil, Usagef("--slots, --alloc, --rank-floor and --calib need --rank K")
		}
		if mf.Mech.any() {
			return nil, Usagef("--gauge, --sink-channels, --sink-bypass and --kv-proj need --rank K")
		}
		return nil, nil
	}
	if err := mf.CheckGRCValues(); err != nil {
		return nil, err
	}
	k, _ := strconv.Atoi(mf.Rank)
	req := &session.GRCRequest{Rank: k, Floor: mf.Floor}
	mf.Mech.apply(req)
	req.Slots, _ = grc.ParseSlots(mf.Slots)
	req.Alloc, _ = grc.ParseAlloc(mf.Alloc)
	if mf.Calib != "" && req.Alloc != grc.AllocMCR && !req.SinkBypass {
		return nil, Usagef("--calib is for --alloc mcr and --sink-bypass")
	}
	return req, nil
}

// grcRequest is the compression the GRC flags ask for, in the session
// package's terms, or nil for --rank off. Only the flags are checked here;
// the model checks the rest in session.ResolveGRC.
func (mf *ModelFlags) grcRequest() (*session.GRCRequest, error) {
	req, err := mf.grcFlags()
	if err != nil || req == nil || mf.Calib == "" {
		return req, err
	}
	b, err := regfile.ReadRegular(mf.Calib, MaxTextBytes)
	if err != nil {
		return nil, fmt.Errorf("--calib: %w", err)
	}
	if len(b) == 0 {
		// "" asks the session for the built-in text: an empty file
		// must not quietly become that.
		return nil, fmt.Errorf("--calib: %s is empty", mf.Calib)
	}
	req.CalibText = string(b)
	return req, nil
}

// useGRC switches st to the compression the GRC flags ask for, built by
// the session package's one build path (session.BuildGRC) through the
// cache the TUI's /set rank and run --session share, so a rank built by
// any of them is read from the cache by the others. Progress and notes go
// to mf.Log; ctrl+c cancels a build.
func (mf *ModelFlags) useGRC(f *gguf.File, tok *tokenizer.Tokenizer, m *model.Model, st *model.State) error {
	req, err := mf.grcRequest()
	if err != nil || req == nil {
		return err
	}
	g, err := mf.buildGRC(f, tok, m, st, *req, false)
	if err != nil {
		return err
	}
	if err := grc.Use(st, g); err != nil {
		return fmt.Errorf("GRC: %w", err)
	}
	return mf.useKVProj(m, st, g, mf.Mech.KVProj, false)
}

// buildGRC returns the compression req asks for, from the shared cache or
// built on st's kernels, with progress and notes on mf.Log unless quiet
// (a compression reported already).
func (mf *ModelFlags) buildGRC(f *gguf.File, tok *tokenizer.Tokenizer, m *model.Model, st *model.State, req session.GRCRequest, quiet bool) (*grc.Compression, error) {
	log := mf.Log
	if quiet || log == nil {
		log = io.Discard
	}
	job, err := session.ResolveGRC(m, tok, req)
	if err != nil {
		return nil, fmt.Errorf("rank %d, slots %s, alloc %s: %w", req.Rank, req.Slots, req.Alloc, err)
	}
	if job.Spec.Calib != "" {
		name := "the built-in calibration text"
		if mf.Calib != "" {
			name = mf.Calib
		}
		what := "sink-bypass calibration"
		if job.Spec.Alloc == grc.AllocMCR {
			what = "MCR calibration"
		}
		fmt.Fprintf(log, "isagi: %s: %s, %d tokens\n", what, name, len(job.Calib))
	}
	var cache *session.GRCCache
	if dir := mf.StorePaths().GRCCache; dir != "" {
		// Without the model's hash there is no cache key: build, and keep
		// nothing.
		if sum, err := mf.sha256(f); err == nil {
			cache = &session.GRCCache{Dir: dir, AppVersion: mf.Version,
				Model: miku.ModelRef{File: filepath.Base(f.Path), SHA256: sum, Arch: m.Arch, Name: m.Name}}
		}
	}
	ctx, stop := Interruptible()
	defer stop()
	start, drew := time.Now(), false
	progress := func(done, total int) {
		drew = true
		fmt.Fprintf(log, "\rGRC %s: [%-30s] %d/%d blocks ", job.Spec.Slots, Bar(done, total, 30), done, total)
	}
	g, built, err := session.BuildGRC(ctx, m, st.Backend(), nil, cache, job, progress)
	if drew {
		fmt.Fprintln(log)
	}
	if err != nil {
		return nil, fmt.Errorf("GRC: %w", err)
	}
	how := "from the cache"
	if built {
		how = fmt.Sprintf("built in %.1f s", time.Since(start).Seconds())
	}
	fmt.Fprintf(log, "isagi: %s (%s)\n", g, how)
	if g.Plan.Alloc != grc.AllocUniform {
		fmt.Fprintf(log, "isagi: ranks per block %v\n", g.Plan.Ranks)
		if len(g.Plan.Phases) > 0 {
			fmt.Fprintf(log, "isagi: MCR phases %v\n", g.Plan.Phases)
		}
	}
	for _, n := range g.Plan.Notes {
		fmt.Fprintln(log, "isagi: note:", n)
	}
	if fig := Figures(g); fig != "" {
		fmt.Fprintln(log, "isagi:", fig)
	}
	return g, nil
}

// StorePaths is where isagi keeps its files (store.DefaultPaths), read the
// first time the command needs it. A base directory that cannot be found
// leaves its paths empty (mf.pathsErr says why): Resolve then reports it,
// and the optional directories (the GRC cache, profiles, sessions) are
// simply not used, as before there was a Paths.
func (mf *ModelFlags) StorePaths() store.Paths {
	if mf.paths == nil {
		p, err := store.DefaultPaths()
		mf.paths, mf.pathsErr = &p, err
	}
	return *mf.paths
}

// SessionOptions is opts with the store's GRC cache and profile
// directories: the TUI and run --session share them, so a rank or profile
// one of them builds is found by the other.
func (mf *ModelFlags) SessionOptions(opts session.Options) session.Options {
	p := mf.StorePaths()
	opts.CacheDir, opts.ProfileDir, opts.SteerDir = p.GRCCache, p.Profiles, p.Steer
	return opts
}

// sha256 identifies f's model in caches: the file's hash, or the embedded
// demo's, which has no file to hash.
func (mf *ModelFlags) sha256(f *gguf.File) (string, error) {
	if mf.Demo {
		_, b := mf.demoModel()
		return BytesSHA256(b), nil
	}
	return session.FileSHA256(f.Path)
}

// CheckSource refuses --demo together with --model, and two of --gpu,
// --cpu and --rpc: which one was meant is a guess.
func (mf *ModelFlags) CheckSource() error {
	if mf.Demo && mf.Model != "" {
		return Usagef("give --model or --demo, not both")
	}
	return mf.Dev.check()
}

// OpenFile maps the GGUF file (or parses the embedded demo model, as the
// TUI's --demo does) and reads its tokenizer, without touching the
// weights: enough for tokenize and --show-prompt, which also work on
// tokenizer-only files.
func (mf *ModelFlags) OpenFile() (*gguf.File, *tokenizer.Tokenizer, error) {
	if err := mf.CheckSource(); err != nil {
		return nil, nil, err
	}
	var f *gguf.File
	if mf.Demo {
		var err error
		if f, err = gguf.Parse(mf.demoModel()); err != nil {
			return nil, nil, err
		}
	} else {
		path, err := mf.StorePaths().Resolve(mf.Model)
		if err != nil {
			return nil, nil, err
		}
		if f, err = gguf.Open(path); err != nil {
			return nil, nil, err
		}
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, tok, nil
}

// Load builds the model over an open file (whose tokenizer is tok) and a
// state for it, compressed as the GRC flags ask. On success the model owns
// f.
func (mf *ModelFlags) Load(f *gguf.File, tok *tokenizer.Tokenizer) (*model.Model, *model.State, error) {
	m, err := model.Load(f)
	if err != nil {
		return nil, nil, err
	}
	ctx := mf.Ctx
	if ctx > m.CtxLen {
		// The model was never trained on positions past its window, so
		// more cache would only hold garbage: use the window, and say so
		// here, where it is decided, rather than let a later "context is
		// full" be the first the user hears of it.
		fmt.Fprintf(mf.Log, "isagi: %s\n", ctxCapNote(ctx, ModelLabel(m, f), m.CtxLen))
		ctx = m.CtxLen
	}
	if ctx <= 0 {
		ctx = mf.CtxDefault
	}
	if ctx <= 0 || ctx > m.CtxLen {
		ctx = min(m.CtxLen, 4096)
	}
	b, err := mf.NewBackend()
	if err != nil {
		return nil, nil, err
	}
	st, err := m.NewStateWith(mf.KV.entries(ctx), b, model.StateOptions{KV: mf.KVType})
	if err != nil {
		return nil, nil, err
	}
	if mf.KV.evicting() {
		if err := st.SetMaxPos(ctx); err != nil {
			return nil, nil, err
		}
	}
	if err := mf.useGRC(f, tok, m, st); err != nil {
		return nil, nil, err
	}
	return m, st, nil
}

// NewBackend makes the backend the flags ask for: the CPU with --threads
// workers unless mf.Backend says otherwise. A command runs until it exits,
// so the backend lives as long as the process.
func (mf *ModelFlags) NewBackend() (backend.Backend, error) {
	if err := mf.resolveDevice(); err != nil {
		return nil, err
	}
	if mf.Backend == nil {
		return cpu.New(tensor.NewKernels(tensor.NewPool(mf.Threads))), nil
	}
	b, err := mf.Backend(mf.Threads)
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	return b, nil
}

// OpenSession opens the model as a conversation (session.Open, or
// session.OpenBytes for --demo, as the TUI does) with opts; Threads and Ctx
// come from the flags.
func (mf *ModelFlags) OpenSession(opts session.Options) (*session.Session, error) {
	if err := mf.CheckSource(); err != nil {
		return nil, err
	}
	opts.Threads = mf.Threads
	if err := mf.resolveDevice(); err != nil {
		return nil, err
	}
	opts.Backend = mf.Backend
	if mf.Ctx != 0 {
		opts.Ctx = mf.Ctx
	}
	opts.KVType = mf.KVType
	if mf.Demo {
		opts.Demo = true
		if mf.Which == "chat" {
			opts.DemoLabel = demo.ChatDescription
		}
		name, b := mf.demoModel()
		return session.OpenBytes(name, b, opts)
	}
	path, err := mf.StorePaths().Resolve(mf.Model)
	if err != nil {
		return nil, err
	}
	return session.Open(path, opts)
}

// Label names the model in reports: --model as given, or the demo's name.
func (mf *ModelFlags) Label() string {
	if mf.Demo {
		name, _ := mf.demoModel()
		return name
	}
	return mf.Model
}

// Open is OpenFile then Load: the file, its tokenizer, the model (which
// owns the file: closing the model closes it) and a state for it.
func (mf *ModelFlags) Open() (*gguf.File, *tokenizer.Tokenizer, *model.Model, *model.State, error) {
	f, tok, err := mf.OpenFile()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	m, st, err := mf.Load(f, tok)
	if err != nil {
		f.Close()
		return nil, nil, nil, nil, err
	}
	return f, tok, m, st, nil
}

// ParseIDs reads "1,300,400" (spaces allowed) into token ids below vocab.
func ParseIDs(s string, vocab int) ([]int32, error) {
	var ids []int32
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		v, err := strconv.ParseInt(f, 10, 32)
		if err != nil || v < 0 || int(v) >= vocab {
			return nil, fmt.Errorf("--prompt-ids: %q is not a token id in [0, %d)", f, vocab)
		}
		ids = append(ids, int32(v))
	}
	return ids, nil
}

// BytesSHA256 is the hex sha256 of b.
func BytesSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
