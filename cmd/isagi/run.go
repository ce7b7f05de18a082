package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/fsx"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/store"
)

// modelFlags are the flags every command that loads a model shares.
type modelFlags struct {
	model   string
	demo    bool   // --demo: a model embedded in the binary (package demo)
	which   string // which demo: "kjv" (plain --demo) or "chat" (--demo=chat)
	threads int
	// backend makes what runs the model from threads (see
	// session.Options.Backend); nil runs it on the CPU.
	backend func(threads int) (backend.Backend, error)
	dev     deviceFlags // --gpu, --cpu: what sets backend (device.go)
	ctx     int
	// ctxDefault is the window when --ctx is not given; 0 means the
	// model's, at most 4096 (bench sizes it to its own prompt and reply).
	ctxDefault int
	// GRC compression (docs/grc.md): rank, slot set, allocation, the
	// GP/MCR floor and MCR's calibration text.
	rank, slots, alloc string
	floor              int
	calib              string
	log                io.Writer // notes and build progress (the flag set's output)
	// paths is the store's layout (see storePaths), read once per command
	// so that every file the command touches comes from one store.Paths;
	// pathsErr says why a base directory of it is unknown, if one is.
	paths    *store.Paths
	pathsErr error
	// kv is KV eviction (--kv-keep, --kv-scorer), for the commands that
	// register it; the zero value evicts nothing.
	kv kvFlags
}

// Help for the flags that name the model and size the run, shared by every
// command that registers them.
const (
	modelHelp   = "GGUF file or installed model name (default $ISAGI_MODEL, then the config file)"
	demoHelp    = "use a built-in demo model instead of --model: --demo is a tiny KJV text generator, --demo=chat a tiny chat model that refuses harmful requests (neither is an assistant)"
	threadsHelp = "worker threads (default: the number of cores)"
	ctxHelp     = "context window in tokens (default: the model's, at most 4096; above the model's window it is capped, with a warning)"
)

// registerSource registers --model and --demo: which model to load.
func (mf *modelFlags) registerSource(fs *flag.FlagSet) {
	fs.StringVar(&mf.model, "model", "", modelHelp)
	fs.Var(demoFlag{mf}, "demo", demoHelp)
}

// demoFlag is --demo: a boolean flag (plain --demo is the KJV model) that
// also takes a value, --demo=chat or --demo=kjv.
type demoFlag struct{ mf *modelFlags }

// IsBoolFlag lets --demo stand alone.
func (d demoFlag) IsBoolFlag() bool { return true }

func (d demoFlag) String() string {
	if d.mf == nil || !d.mf.demo {
		return ""
	}
	return d.mf.which
}

// Set takes true/false (from plain --demo) or a demo's name.
func (d demoFlag) Set(v string) error {
	switch v {
	case "true":
		d.mf.demo, d.mf.which = true, "kjv"
		return nil
	case "false":
		d.mf.demo, d.mf.which = false, ""
		return nil
	}
	if _, _, ok := demo.Lookup(v); !ok {
		return fmt.Errorf("no demo model %q: want --demo (the KJV text generator) or --demo=chat", v)
	}
	d.mf.demo, d.mf.which = true, v
	return nil
}

// demoModel is the chosen demo model's name and bytes.
func (mf *modelFlags) demoModel() (string, []byte) {
	name, b, ok := demo.Lookup(mf.which)
	if !ok {
		return demo.Name, demo.Model
	}
	return name, b
}

// registerThreads registers the model and --threads: what the geometry
// commands take, which size their own context.
func (mf *modelFlags) registerThreads(fs *flag.FlagSet) {
	mf.registerSource(fs)
	fs.IntVar(&mf.threads, "threads", 0, threadsHelp)
	mf.dev.register(fs)
}

// resolveDevice sets the backend from --gpu and --cpu (the GPU when one is
// usable, by default), unless a caller set it already.
func (mf *modelFlags) resolveDevice() error {
	if mf.backend != nil {
		return nil
	}
	b, err := mf.dev.resolve()
	if err != nil {
		return err
	}
	mf.backend = b
	return nil
}

// registerModel registers what the TUI takes: the model, --threads and --ctx.
func (mf *modelFlags) registerModel(fs *flag.FlagSet) {
	mf.registerThreads(fs)
	fs.IntVar(&mf.ctx, "ctx", 0, ctxHelp)
}

// register registers every model flag of the scripted commands: the
// model, --threads, --ctx and the GRC compression.
func (mf *modelFlags) register(fs *flag.FlagSet) {
	mf.registerModel(fs)
	fs.StringVar(&mf.rank, "rank", "off", "GRC: compress to rank K (1…embedding width; the mean rank per block under --alloc gp|mcr), or off")
	fs.StringVar(&mf.slots, "slots", "qkv", "with --rank: what to compress: qkv, or a comma-separated set of qkv, o and ffn (gate+up by one basis, down by SVD), or all")
	fs.StringVar(&mf.alloc, "alloc", "uniform", "with --rank: rank per block: uniform, gp (from the weights' spectra) or mcr (from hidden-state variance over --calib)")
	fs.IntVar(&mf.floor, "rank-floor", 0, "with --alloc gp|mcr: the least rank a block gets (default ⌈0.55 × embedding width⌉)")
	fs.StringVar(&mf.calib, "calib", "", "with --alloc mcr: calibration text file (default: a short built-in English text)")
	mf.log = fs.Output()
}

// grcRequest is the compression the GRC flags ask for, in the session
// package's terms, or nil for --rank off. Only the flags are checked here;
// the model checks the rest in session.ResolveGRC.
func (mf *modelFlags) grcRequest() (*session.GRCRequest, error) {
	if mf.rank == "off" || mf.rank == "" {
		if mf.slots != "qkv" || mf.alloc != "uniform" || mf.floor != 0 || mf.calib != "" {
			return nil, errors.New("--slots, --alloc, --rank-floor and --calib need --rank K")
		}
		return nil, nil
	}
	k, err := strconv.Atoi(mf.rank)
	if err != nil {
		return nil, fmt.Errorf("--rank %q: want a number or off", mf.rank)
	}
	req := &session.GRCRequest{Rank: k, Floor: mf.floor}
	if req.Slots, err = grc.ParseSlots(mf.slots); err != nil {
		return nil, fmt.Errorf("--slots: %w", err)
	}
	if req.Alloc, err = grc.ParseAlloc(mf.alloc); err != nil {
		return nil, fmt.Errorf("--alloc: %w", err)
	}
	switch {
	case req.Alloc == grc.AllocMCR && mf.calib != "":
		b, err := fsx.ReadRegular(mf.calib, maxTextBytes)
		if err != nil {
			return nil, fmt.Errorf("--calib: %w", err)
		}
		if len(b) == 0 {
			// "" asks the session for the built-in text: an empty file
			// must not quietly become that.
			return nil, fmt.Errorf("--calib: %s is empty", mf.calib)
		}
		req.CalibText = string(b)
	case mf.calib != "":
		return nil, errors.New("--calib is for --alloc mcr")
	}
	return req, nil
}

// useGRC switches st to the compression the GRC flags ask for, built by
// the session package's one build path (session.BuildGRC) through the
// cache the TUI's /set rank and run --session share, so a rank built by
// any of them is read from the cache by the others. Progress and notes go
// to mf.log; ctrl+c cancels a build.
func (mf *modelFlags) useGRC(f *gguf.File, tok *tokenizer.Tokenizer, m *model.Model, st *model.State) error {
	req, err := mf.grcRequest()
	if err != nil || req == nil {
		return err
	}
	g, err := mf.buildGRC(f, tok, m, st, *req)
	if err != nil {
		return err
	}
	if err := grc.Use(st, g); err != nil {
		return fmt.Errorf("GRC: %w", err)
	}
	return nil
}

// buildGRC returns the compression req asks for, from the shared cache or
// built on st's kernels, with progress and notes on mf.log.
func (mf *modelFlags) buildGRC(f *gguf.File, tok *tokenizer.Tokenizer, m *model.Model, st *model.State, req session.GRCRequest) (*grc.Compression, error) {
	job, err := session.ResolveGRC(m, tok, req)
	if err != nil {
		return nil, fmt.Errorf("rank %d, slots %s, alloc %s: %w", req.Rank, req.Slots, req.Alloc, err)
	}
	if job.Spec.Alloc == grc.AllocMCR {
		name := "the built-in calibration text"
		if mf.calib != "" {
			name = mf.calib
		}
		fmt.Fprintf(mf.log, "isagi: MCR calibration: %s, %d tokens\n", name, len(job.Calib))
	}
	var cache *session.GRCCache
	if dir := mf.storePaths().GRCCache; dir != "" {
		// Without the model's hash there is no cache key: build, and keep
		// nothing.
		if sum, err := mf.sha256(f); err == nil {
			cache = &session.GRCCache{Dir: dir, AppVersion: version,
				Model: miku.ModelRef{File: filepath.Base(f.Path), SHA256: sum, Arch: m.Arch, Name: m.Name}}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start, drew := time.Now(), false
	progress := func(done, total int) {
		drew = true
		fmt.Fprintf(mf.log, "\rGRC %s: [%-30s] %d/%d blocks ", job.Spec.Slots, bar(done, total, 30), done, total)
	}
	g, built, err := session.BuildGRC(ctx, m, st.Backend(), nil, cache, job, progress)
	if drew {
		fmt.Fprintln(mf.log)
	}
	if err != nil {
		return nil, fmt.Errorf("GRC: %w", err)
	}
	how := "from the cache"
	if built {
		how = fmt.Sprintf("built in %.1f s", time.Since(start).Seconds())
	}
	fmt.Fprintf(mf.log, "isagi: %s (%s)\n", g, how)
	if g.Plan.Alloc != grc.AllocUniform {
		fmt.Fprintf(mf.log, "isagi: ranks per block %v\n", g.Plan.Ranks)
		if len(g.Plan.Phases) > 0 {
			fmt.Fprintf(mf.log, "isagi: MCR phases %v\n", g.Plan.Phases)
		}
	}
	for _, n := range g.Plan.Notes {
		fmt.Fprintln(mf.log, "isagi: note:", n)
	}
	return g, nil
}

// storePaths is where isagi keeps its files (store.DefaultPaths), read the
// first time the command needs it. A base directory that cannot be found
// leaves its paths empty (mf.pathsErr says why): Resolve then reports it,
// and the optional directories (the GRC cache, profiles, sessions) are
// simply not used, as before there was a Paths.
func (mf *modelFlags) storePaths() store.Paths {
	if mf.paths == nil {
		p, err := store.DefaultPaths()
		mf.paths, mf.pathsErr = &p, err
	}
	return *mf.paths
}

// sessionOptions is opts with the store's GRC cache and profile
// directories: the TUI and run --session share them, so a rank or profile
// one of them builds is found by the other.
func (mf *modelFlags) sessionOptions(opts session.Options) session.Options {
	p := mf.storePaths()
	opts.CacheDir, opts.ProfileDir = p.GRCCache, p.Profiles
	return opts
}

// sha256 identifies f's model in caches: the file's hash, or the embedded
// demo's, which has no file to hash.
func (mf *modelFlags) sha256(f *gguf.File) (string, error) {
	if mf.demo {
		_, b := mf.demoModel()
		return bytesSHA256(b), nil
	}
	return session.FileSHA256(f.Path)
}

// checkSource refuses --demo together with --model: which one was meant is
// a guess.
func (mf *modelFlags) checkSource() error {
	if mf.demo && mf.model != "" {
		return usagef("give --model or --demo, not both")
	}
	return nil
}

// openFile maps the GGUF file (or parses the embedded demo model, as the
// TUI's --demo does) and reads its tokenizer, without touching the
// weights: enough for tokenize and --show-prompt, which also work on
// tokenizer-only files.
func (mf *modelFlags) openFile() (*gguf.File, *tokenizer.Tokenizer, error) {
	if err := mf.checkSource(); err != nil {
		return nil, nil, err
	}
	var f *gguf.File
	if mf.demo {
		var err error
		if f, err = gguf.Parse(mf.demoModel()); err != nil {
			return nil, nil, err
		}
	} else {
		path, err := mf.storePaths().Resolve(mf.model)
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

// load builds the model over an open file (whose tokenizer is tok) and a
// state for it, compressed as the GRC flags ask. On success the model owns
// f.
func (mf *modelFlags) load(f *gguf.File, tok *tokenizer.Tokenizer) (*model.Model, *model.State, error) {
	m, err := model.Load(f)
	if err != nil {
		return nil, nil, err
	}
	ctx := mf.ctx
	if ctx > m.CtxLen {
		// The model was never trained on positions past its window, so
		// more cache would only hold garbage: use the window, and say so
		// here, where it is decided, rather than let a later "context is
		// full" be the first the user hears of it.
		fmt.Fprintf(mf.log, "isagi: %s\n", ctxCapNote(ctx, modelLabel(m, f), m.CtxLen))
		ctx = m.CtxLen
	}
	if ctx <= 0 {
		ctx = mf.ctxDefault
	}
	if ctx <= 0 || ctx > m.CtxLen {
		ctx = min(m.CtxLen, 4096)
	}
	b, err := mf.newBackend()
	if err != nil {
		return nil, nil, err
	}
	st, err := m.NewStateOn(mf.kv.entries(ctx), b)
	if err != nil {
		return nil, nil, err
	}
	if mf.kv.evicting() {
		if err := st.SetMaxPos(ctx); err != nil {
			return nil, nil, err
		}
	}
	if err := mf.useGRC(f, tok, m, st); err != nil {
		return nil, nil, err
	}
	return m, st, nil
}

// newBackend makes the backend the flags ask for: the CPU with --threads
// workers unless mf.backend says otherwise. A command runs until it exits,
// so the backend lives as long as the process.
func (mf *modelFlags) newBackend() (backend.Backend, error) {
	if err := mf.resolveDevice(); err != nil {
		return nil, err
	}
	if mf.backend == nil {
		return cpu.New(tensor.NewKernels(tensor.NewPool(mf.threads))), nil
	}
	b, err := mf.backend(mf.threads)
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	return b, nil
}

// openSession opens the model as a conversation (session.Open, or
// session.OpenBytes for --demo, as the TUI does) with opts; Threads and Ctx
// come from the flags.
func (mf *modelFlags) openSession(opts session.Options) (*session.Session, error) {
	if err := mf.checkSource(); err != nil {
		return nil, err
	}
	opts.Threads = mf.threads
	if err := mf.resolveDevice(); err != nil {
		return nil, err
	}
	opts.Backend = mf.backend
	if mf.ctx != 0 {
		opts.Ctx = mf.ctx
	}
	if mf.demo {
		opts.Demo = true
		if mf.which == "chat" {
			opts.DemoLabel = demo.ChatDescription
		}
		name, b := mf.demoModel()
		return session.OpenBytes(name, b, opts)
	}
	path, err := mf.storePaths().Resolve(mf.model)
	if err != nil {
		return nil, err
	}
	return session.Open(path, opts)
}

// label names the model in reports: --model as given, or the demo's name.
func (mf *modelFlags) label() string {
	if mf.demo {
		name, _ := mf.demoModel()
		return name
	}
	return mf.model
}

// open is openFile then load.
func (mf *modelFlags) open() (*model.Model, *tokenizer.Tokenizer, *model.State, error) {
	f, tok, err := mf.openFile()
	if err != nil {
		return nil, nil, nil, err
	}
	m, st, err := mf.load(f, tok)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return m, tok, st, nil
}

// chatFlags select and feed the chat template.
type chatFlags struct {
	chat         bool
	messages     string
	templateFile string
	vars         []string
	noGenPrompt  bool
	showPrompt   bool
}

func (cf *chatFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&cf.chat, "chat", false, "render the model's chat template around the prompt (a user turn)")
	fs.StringVar(&cf.messages, "messages", "", "conversation file for --chat: a JSON list of {\"role\", \"content\"}")
	fs.StringVar(&cf.templateFile, "chat-template-file", "", "Jinja chat template to use instead of the model's")
	fs.Func("template-var", "extra template variable key=value, repeatable (value parsed as JSON when it is JSON)", func(v string) error {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("want key=value, got %q", v)
		}
		cf.vars = append(cf.vars, v)
		return nil
	})
	fs.BoolVar(&cf.noGenPrompt, "no-generation-prompt", false, "render without the header that opens the assistant's turn")
	fs.BoolVar(&cf.showPrompt, "show-prompt", false, "print the rendered prompt and its token count, and stop (needs no weights)")
}

// render builds the chat prompt and its tokens.
func (cf *chatFlags) render(f *gguf.File, tok *tokenizer.Tokenizer, prompt string) (*chat.Template, chat.Prompt, []int32, error) {
	var tmpl *chat.Template
	var err error
	if cf.templateFile != "" {
		src, rerr := fsx.ReadRegular(cf.templateFile, maxTemplateBytes)
		if rerr != nil {
			return nil, chat.Prompt{}, nil, fmt.Errorf("--chat-template-file: %w", rerr)
		}
		tmpl, err = chat.ForTokenizer(string(src), tok)
	} else {
		tmpl, err = chat.FromGGUF(f, tok)
		if errors.Is(err, chat.ErrNoTemplate) {
			err = fmt.Errorf("%w: run without --chat for plain completion, or pass --chat-template-file", err)
		}
	}
	if err != nil {
		return nil, chat.Prompt{}, nil, err
	}
	var msgs []chat.Message
	if cf.messages != "" {
		data, err := fsx.ReadRegular(cf.messages, maxTextBytes)
		if err != nil {
			return nil, chat.Prompt{}, nil, fmt.Errorf("--messages: %w", err)
		}
		if msgs, err = chat.ParseMessages(data); err != nil {
			return nil, chat.Prompt{}, nil, fmt.Errorf("%s: %w", cf.messages, err)
		}
	}
	if prompt != "" {
		msgs = append(msgs, chat.Message{Role: "user", Content: prompt})
	}
	vars := map[string]any{}
	for _, kv := range cf.vars {
		k, v, _ := strings.Cut(kv, "=")
		var parsed any
		if json.Unmarshal([]byte(v), &parsed) == nil {
			vars[k] = parsed
		} else {
			vars[k] = v
		}
	}
	p, err := tmpl.Render(msgs, chat.Options{AddGenerationPrompt: !cf.noGenPrompt, Vars: vars})
	if err != nil {
		return nil, chat.Prompt{}, nil, err
	}
	// Templates write their own BOS where the model wants one, as
	// transformers' apply_chat_template assumes: add no specials here.
	ids, err := tok.EncodePrompt(p.Text, p.User, tokenizer.EncodeOptions{})
	if err != nil {
		return nil, chat.Prompt{}, nil, err
	}
	return tmpl, p, ids, nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	return cmdRunInput(args, os.Stdin, stdout, stderr)
}

// cmdRunInput is cmdRun reading --prompt - from stdin, so that tests can
// give it an input other than the process's.
func cmdRunInput(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var mf modelFlags
	mf.register(fs)
	defer mf.dev.close()
	var cf chatFlags
	cf.register(fs)
	prompt := fs.String("prompt", "", "text to continue (BOS is added as the model asks), or with --chat the user's message; - reads stdin")
	promptIDs := fs.String("prompt-ids", "", "comma-separated token ids to feed instead of --prompt")
	promptFile := fs.String("file", "", "read the prompt from this text file (as llama-cli's -f)")
	printIDs := fs.Bool("ids", false, "print the generated token ids (space-separated, one line) instead of text")
	n := fs.Int("n", 0, "most tokens to generate (default: until an end-of-generation token or the end of the context window)")
	p := sample.Params{}
	fs.Func("temp", "sampling temperature; 0 is greedy (default 0.8)", floatFlag(&p.Temperature))
	fs.IntVar(&p.TopK, "top-k", 40, "keep the k most likely tokens; 0 is off")
	fs.Func("top-p", "nucleus sampling threshold; 1 is off (default 0.95)", floatFlag(&p.TopP))
	fs.Func("min-p", "drop tokens below this fraction of the best one's probability (default 0.05)", floatFlag(&p.MinP))
	fs.Func("repeat-penalty", "penalty on tokens of the last --repeat-window; 1 is off (default 1)", floatFlag(&p.RepeatPenalty))
	fs.IntVar(&p.RepeatWindow, "repeat-window", 64, "tokens the repeat penalty looks back over")
	seed := fs.Int64("seed", -1, "random seed; the same seed gives the same tokens (default: from the clock)")
	verbose := fs.Bool("v", false, "print timing statistics to stderr")
	sessionFile := fs.String("session", "", "append this turn to a .miku session file (created if missing): the prompt is the next user message. "+
		"The session's saved settings are the defaults; -n, --temp, --top-k, --top-p, --min-p, --repeat-penalty, --seed, --rank, --slots and --alloc given here override them and are saved with the session. "+
		"The file is locked from load to save: runs on the same file take turns")
	force := fs.Bool("force-model", false, "with --session: continue a session saved with another model")
	var knobs sessionKnobs
	knobs.draft.register(fs)
	mf.kv.register(fs)
	fs.StringVar(&knobs.snipe, "snipe", "", "with --session: Snipe projectors on for this turn, e.g. privacy,toxicity (needs the geometry profile)")
	fs.StringVar(&knobs.alpha, "ogd-alpha", "", "with --session: the Safe OGD exploration step α for this turn (needs the geometry profile)")
	p.Temperature, p.TopP, p.MinP, p.RepeatPenalty = 0.8, 0.95, 0.05, 1
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprint(w, `Usage: isagi run (--model FILE.gguf | --demo) [--prompt TEXT | --prompt-ids 1,2,3] [--chat ...] [flags]

Streams the model's continuation of a prompt to stdout. An empty prompt
starts from BOS. With --chat the prompt is the user's turn, rendered with the
model's chat template, and the reply ends at the template's end-of-turn token.
The run exits 0 when it stops at -n tokens, at an end-of-generation token,
or, without -n, at the end of the context window (a completion's natural
end; stderr says so); and 1 when the window filled before the -n tokens
asked for (stderr says which limit).
Flags:
`)
		fs.PrintDefaults()
		fmt.Fprint(w, `
Examples:
  isagi run --demo --prompt "And God said" -n 48
  isagi run --model kjv-q8_0.gguf --prompt "And God said" -n 48
  isagi run --model kjv-f32.gguf --prompt-ids 1,300,391,394 --temp 0 --ids
  echo "The LORD is my shepherd" | isagi run --model kjv-q8_0.gguf --prompt - --seed 7
  isagi run --model qwen.gguf --chat --prompt "Name three rivers."
  isagi run --model tokenizer.gguf --chat --messages conv.json --show-prompt
  isagi run --model qwen3.gguf --chat --template-var enable_thinking=false --prompt "Hi"
`)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	// A prompt may come as the one argument, as llama-cli and ollama take
	// it: isagi run -m M "text".
	if fs.NArg() == 1 && *prompt == "" && *promptIDs == "" && *promptFile == "" {
		*prompt = fs.Arg(0)
	} else if fs.NArg() != 0 {
		return argsError(fs, "unexpected arguments %q", fs.Args())
	}
	if *promptFile != "" {
		if *prompt != "" || *promptIDs != "" {
			return usagef("give --file or --prompt (or --prompt-ids), not both")
		}
		b, err := fsx.ReadRegular(*promptFile, maxTextBytes)
		if err != nil {
			return fmt.Errorf("--file: %w", err)
		}
		*prompt = strings.TrimRight(string(b), "\n")
	}
	// Without -n the reply runs to an end-of-generation token or to the
	// end of the window, whatever the model's window is: a default that
	// fits every model (a fixed 256 equalled the demo's whole window).
	nSet := flagGiven(fs, "n")
	if nSet && *n < 1 {
		return usagef("-n %d: give at least 1 token (or leave -n out to run to the end of the window)", *n)
	}
	if *seed >= 0 {
		p.Seed = uint64(*seed)
	} else {
		p.Seed = uint64(time.Now().UnixNano())
	}
	if err := p.Validate(); err != nil {
		return usageError{err}
	}
	if *prompt != "" && *promptIDs != "" {
		return usagef("give --prompt or --prompt-ids, not both")
	}
	if (cf.messages != "" || cf.showPrompt || cf.templateFile != "" || len(cf.vars) > 0 || cf.noGenPrompt) && !cf.chat {
		return usagef("--messages, --show-prompt, --chat-template-file, --template-var and --no-generation-prompt need --chat")
	}
	if cf.chat && *promptIDs != "" {
		return usagef("--chat renders text: use --prompt or --messages, not --prompt-ids")
	}
	if err := mf.checkSource(); err != nil {
		return err
	}
	if err := mf.kv.check(); err != nil {
		return err
	}
	if _, err := knobs.draft.spec(); err != nil && *sessionFile == "" {
		return err // a session may hold the drafter these flags refine
	}
	if *prompt == "-" {
		// Read one byte past the limit, so that an input of exactly the
		// limit is taken and a longer one (or /dev/zero, which never
		// ends) is refused instead of read until memory runs out.
		b, err := io.ReadAll(io.LimitReader(stdin, maxTextBytes+1))
		if err != nil {
			return fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		if len(b) > maxTextBytes {
			return fmt.Errorf("standard input is larger than %d MiB: give a shorter prompt", maxTextBytes>>20)
		}
		*prompt = strings.TrimRight(string(b), "\n")
	}

	if *sessionFile != "" {
		// The flags given, as opposed to defaulted, override the
		// session's saved settings.
		knobs.set = map[string]bool{}
		fs.Visit(func(f *flag.Flag) { knobs.set[f.Name] = true })
		for _, a := range flagAliases() { // -s is --seed, and so on
			if knobs.set[a[0]] {
				knobs.set[a[1]] = true
			}
		}
		if !nSet {
			*n = 256 // the session's saved max_tokens applies unless -n is given
		}
		return runSession(&mf, *sessionFile, *prompt, p, *n, *force, *verbose, knobs, stdout, stderr)
	}
	f, tok, err := mf.openFile()
	if err != nil {
		return err
	}
	var ids, stops []int32
	switch {
	case cf.chat:
		tmpl, p, cids, err := cf.render(f, tok, *prompt)
		if err != nil {
			f.Close()
			return err
		}
		if cf.showPrompt {
			defer f.Close()
			fmt.Fprint(stdout, p.Text)
			if !strings.HasSuffix(p.Text, "\n") {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "-- %d tokens\n", len(cids))
			return nil
		}
		ids, stops = cids, tmpl.StopTokens(tok)
	case *promptIDs != "":
		if ids, err = parseIDs(*promptIDs, tok.VocabSize()); err != nil {
			err = usageError{err}
		}
	case *prompt != "":
		ids, err = tok.Encode(*prompt, tokenizer.EncodeOptions{AddSpecial: true})
	}
	if err != nil {
		f.Close()
		return err
	}
	if len(ids) == 0 {
		if tok.BOS() < 0 {
			f.Close()
			return errors.New("this model has no BOS token to start from: give a prompt")
		}
		ids = []int32{tok.BOS()}
	}
	if stops == nil {
		stops = tok.EndOfGeneration()
	}
	m, st, err := mf.load(f, tok)
	if err != nil {
		f.Close()
		return err
	}
	defer m.Close()

	gen, err := generate.New(st, p)
	if err != nil {
		return err
	}
	if err := mf.kv.install(gen, p.Seed); err != nil {
		return err
	}
	dr, err := mf.drafter(&knobs.draft, f, tok, m, st, p)
	if err != nil {
		return err
	}
	if dr != nil {
		defer dr.cleanup()
		if err := gen.SetSpeculation(dr.opts); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	// A continuation keeps SentencePiece's leading space ("And God said" +
	// " unto"); a chat reply is shown on its own and drops it.
	dec := tok.NewDecoder(tokenizer.DecodeOptions{Continuation: *prompt != "" && !cf.chat})
	first := true
	emit := func(id int32) error {
		if *printIDs {
			if !first {
				out.WriteByte(' ')
			}
			first = false
			_, err := out.WriteString(strconv.Itoa(int(id)))
			return err
		}
		if _, err := out.Write(dec.Write(id)); err != nil {
			return err
		}
		return out.Flush() // stream: the reader sees each token as it comes
	}
	if !nSet {
		*n = st.MaxPos() // more than can fit: the window ends the reply
	}
	stats, err := gen.Generate(ctx, ids, generate.Options{MaxTokens: *n, Stop: stops}, emit)
	if !*printIDs {
		out.Write(dec.Flush())
	}
	out.WriteByte('\n')
	out.Flush()
	if *verbose {
		fmt.Fprintf(stderr, "%d prompt tokens, %d generated (%s); first token %.0f ms; prefill %.1f tok/s; decode %.1f tok/s\n",
			stats.PromptTokens, stats.Generated, stats.Reason, float64(stats.TimeToFirst.Microseconds())/1000,
			stats.PrefillTokPerSec(), stats.DecodeTokPerSec())
		updates := 0
		if dr != nil && dr.model != nil {
			updates = dr.model.Updates()
		}
		printSpec(stderr, stats.Spec, updates)
	}
	if errors.Is(err, model.ErrContextFull) {
		if !nSet && stats.Generated > 0 {
			fmt.Fprintf(stderr, "stopped at the end of the %d-token context window after %d tokens\n", st.MaxPos(), stats.Generated)
			return nil
		}
		return contextFullError(st.MaxPos(), m.CtxLen, modelLabel(m, f), stats.Generated)
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func floatFlag(dst *float32) func(string) error {
	return func(s string) error {
		v, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return errors.New("not a number")
		}
		*dst = float32(v)
		return nil
	}
}

// parseIDs reads "1,300,400" (spaces allowed) into token ids below vocab.
func parseIDs(s string, vocab int) ([]int32, error) {
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

// sessionKnobs are the geometry knobs of a scripted turn ("": as saved).
type sessionKnobs struct {
	snipe, alpha string
	draft        draftFlags
	// set holds the names of the flags given on the command line
	// (flag.FlagSet.Visit): they override the session's saved settings.
	set map[string]bool
}

// runSession is run --session: one turn of a saved conversation, streamed,
// then the session saved again. The model is --model or --demo, opened as
// the TUI opens it.
func runSession(mf *modelFlags, file, prompt string, p sample.Params, n int, force, verbose bool, knobs sessionKnobs, stdout, stderr io.Writer) (err error) {
	if prompt == "" {
		return errors.New("--session needs --prompt: the next message")
	}
	if knobs.set["rank-floor"] || knobs.set["calib"] {
		return errors.New("--rank-floor and --calib are not available with --session, which compresses as the TUI's /set rank does")
	}
	set := session.Settings{Temperature: p.Temperature, TopK: p.TopK, TopP: p.TopP, MinP: p.MinP,
		RepeatPenalty: p.RepeatPenalty, Seed: p.Seed, MaxTokens: n}
	// Threads and Ctx come from the flags in mf.openSession; the GRC cache
	// and the profiles are the TUI's.
	opts := mf.sessionOptions(session.Options{Settings: set, AppVersion: version})
	// The shared opener, as the TUI's: --model (resolved from the store)
	// or --demo (the embedded model).
	s, err := mf.openSession(opts)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// Hold the file's lock from load to save, so that a concurrent run on
	// the same file waits for this one's turn to be saved, loads it, and
	// adds its own after it, instead of saving over it.
	now, cancel := context.WithCancel(ctx)
	cancel()
	lock, err := miku.Lock(now, file)
	if errors.Is(err, miku.ErrLocked) {
		fmt.Fprintf(stderr, "isagi: %s is in use by another process: waiting for it (ctrl+c stops)\n", file)
		lock, err = miku.Lock(ctx, file)
	}
	if err != nil {
		return err
	}
	defer func() {
		if uerr := lock.Unlock(); err == nil {
			err = uerr
		}
	}()
	if _, err := os.Stat(file); err == nil {
		notes, err := s.Load(file, force)
		if err != nil {
			return err
		}
		for _, note := range notes {
			fmt.Fprintln(stderr, "isagi:", note)
		}
	}
	geo, err := s.LoadGeometry()
	if err != nil {
		fmt.Fprintln(stderr, "isagi: geometry profile not loaded:", err)
	}
	for _, note := range s.Notes() {
		fmt.Fprintln(stderr, "isagi:", note)
	}
	// Flags given on the command line win over the saved settings (the
	// new session's settings came from the flags already).
	f32 := func(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
	for _, o := range [][3]string{
		{"n", "max_tokens", strconv.Itoa(n)},
		{"temp", "temperature", f32(p.Temperature)},
		{"top-k", "top_k", strconv.Itoa(p.TopK)},
		{"top-p", "top_p", f32(p.TopP)},
		{"min-p", "min_p", f32(p.MinP)},
		{"repeat-penalty", "repeat_penalty", f32(p.RepeatPenalty)},
		{"seed", "seed", strconv.FormatUint(p.Seed, 10)},
	} {
		if knobs.set[o[0]] {
			if err := s.Set(o[1], o[2]); err != nil {
				return fmt.Errorf("%s%s: %w", map[bool]string{true: "-", false: "--"}[len(o[0]) == 1], o[0], err)
			}
		}
	}
	if knobs.set["rank"] || knobs.set["slots"] || knobs.set["alloc"] {
		// The TUI's /set path: the compression is built (or read from
		// the shared cache) by the session, and saved with its settings.
		rank := strconv.Itoa(s.Settings().Rank)
		if knobs.set["rank"] {
			rank = mf.rank
		}
		if rank == "off" || rank == "0" {
			if knobs.set["slots"] || knobs.set["alloc"] {
				return errors.New("--slots and --alloc need --rank K (or a session saved with a rank)")
			}
		} else if s.Settings().Rank > 0 && (knobs.set["slots"] || knobs.set["alloc"]) {
			// Off first, so that the new slot set or allocation is not
			// built at the old rank on the way to the new one.
			if err := s.Set("rank", "off"); err != nil {
				return fmt.Errorf("--rank: %w", err)
			}
		}
		for _, o := range [][2]string{{"slots", mf.slots}, {"alloc", mf.alloc}} {
			if knobs.set[o[0]] {
				if err := s.Set(o[0], o[1]); err != nil {
					return fmt.Errorf("--%s: %w", o[0], err)
				}
			}
		}
		drew := false
		progress := func(done, total int) {
			drew = true
			fmt.Fprintf(stderr, "\rGRC: [%-30s] %d/%d blocks ", bar(done, total, 30), done, total)
		}
		err := s.SetCtx(ctx, "rank", rank, progress)
		if drew {
			fmt.Fprintln(stderr)
		}
		if err != nil {
			return fmt.Errorf("--rank %s: %w", rank, err)
		}
	}
	for _, kv := range mf.kv.knobs() {
		if name := strings.ReplaceAll(kv[0], "_", "-"); knobs.set[name] {
			if err := s.Set(kv[0], kv[1]); err != nil {
				return fmt.Errorf("--%s: %w", name, err)
			}
		}
	}
	for _, kv := range [][2]string{{"snipe", knobs.snipe}, {"ogd_alpha", knobs.alpha}} {
		if kv[1] == "" {
			continue
		}
		if err := s.Set(kv[0], kv[1]); err != nil {
			return fmt.Errorf("--%s: %w", strings.ReplaceAll(kv[0], "_", "-"), err)
		}
	}
	if knobs.set["draft"] || knobs.set["draft-n"] || knobs.set["online-basis"] {
		// Given flags win over the saved speculation settings, as above;
		// the drafter's compression is built (or read) as /set draft does.
		drew := false
		progress := func(done, total int) {
			drew = true
			fmt.Fprintf(stderr, "\rGRC (drafter): [%-30s] %d/%d blocks ", bar(done, total, 30), done, total)
		}
		flags := map[string]string{"draft": "draft", "draft_n": "draft-n", "online_basis": "online-basis"}
		for _, kv := range knobs.draft.knobs() {
			if !knobs.set[flags[kv[0]]] {
				continue
			}
			err := s.SetCtx(ctx, kv[0], kv[1], progress)
			if drew {
				fmt.Fprintln(stderr)
				drew = false
			}
			if err != nil {
				return fmt.Errorf("--%s: %w", flags[kv[0]], err)
			}
		}
	}
	out := bufio.NewWriter(stdout)
	turn, err := s.Send(ctx, prompt, func(e session.Event) {
		out.WriteString(e.Piece)
		out.Flush()
	})
	out.WriteByte('\n')
	out.Flush()
	if err != nil {
		return err
	}
	if verbose {
		used, limit := s.ContextUsed()
		fmt.Fprintf(stderr, "%d new prompt tokens, %d generated (%s); decode %.1f tok/s; context %d/%d; dropped %d turns\n",
			turn.PromptTok, turn.Tokens, turn.Stop, turn.DecodeTokS, used, limit, turn.Dropped)
		if i := s.Info(); i.Rank > 0 {
			fmt.Fprintf(stderr, "GRC rank %d (%s): %.1f%% of the energy kept\n", i.Rank, i.RankSpec, 100*i.RankEnergy)
		}
		switch c := turn.COG; {
		case c != nil:
			from := "not served"
			if c.Retrieved {
				from = "served"
			}
			fmt.Fprintf(stderr, "cog: %s, distance %.4f, %s from memory: %s; manifold growth %.4f, %d trajectories\n",
				strings.ToUpper(c.Tier), c.Distance, from, c.Why, c.Growth, c.Trajectories)
		case !geo:
			fmt.Fprintln(stderr, "cog: off (no geometry profile for this model: isagi calibrate)")
		}
		if g := turn.Geometry; g != nil {
			fmt.Fprintf(stderr, "teh: prompt %.1f%%, reply %.1f%%, peak %.1f%%\n", g.Prompt.Overall, g.Reply.Overall, g.Peak)
		}
		if turn.Spec != nil {
			_, updates := s.Speculation()
			printSpec(stderr, *turn.Spec, updates)
		}
	}
	return sessionTurnError(s, turn, s.SaveLocked(lock))
}
