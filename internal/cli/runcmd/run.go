// Package runcmd is `isagi run`: the scripted interface. Without --session
// it drives the engine directly, the token-exact path the llama.cpp goldens
// run through; with --session it is one turn of a saved conversation, a
// client of the session as the TUI is.
package runcmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
)

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
		src, rerr := regfile.ReadRegular(cf.templateFile, base.MaxTemplateBytes)
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
		data, err := regfile.ReadRegular(cf.messages, base.MaxTextBytes)
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

// Main is `isagi run`: a continuation of a prompt streamed to stdout, or
// with --session one turn of a saved conversation. --prompt - reads
// env.Stdin.
func Main(env base.Env, args []string) error {
	fs := env.FlagSet("run", usageHead, usageTail)
	mf := base.ModelFlags{Version: env.Version}
	mf.Register(fs)
	defer mf.Dev.Close()
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
		"The session's saved settings are the defaults; -n, --temp, --top-k, --top-p, --min-p, --repeat-penalty, --seed, --rank, --slots, --alloc, --gauge, --sink-channels, --sink-bypass and --kv-proj given here override them and are saved with the session. "+
		"The file is locked from load to save: runs on the same file take turns")
	force := fs.Bool("force-model", false, "with --session: continue a session saved with another model")
	var knobs sessionKnobs
	knobs.draft.Register(fs)
	mf.KV.Register(fs)
	mf.Steer.Register(fs)
	var ff base.FormatFlags
	ff.Register(fs)
	fs.StringVar(&knobs.snipe, "snipe", "", "with --session: Snipe projectors on for this turn, e.g. privacy,toxicity (needs the geometry profile)")
	fs.BoolVar(&knobs.regenerate, "regenerate", false, "with --session: answer the last message again instead of a new one (no --prompt); the old reply stays in the session as a branch")
	fs.IntVar(&knobs.edit, "edit", 0, "with --session: --prompt replaces your message `N` (1 is the first of the branch in use) and is answered; the old branch stays in the session")
	fs.StringVar(&knobs.alpha, "ogd-alpha", "", "with --session: the Safe OGD exploration step α for this turn (needs the geometry profile)")
	p.Temperature, p.TopP, p.MinP, p.RepeatPenalty = 0.8, 0.95, 0.05, 1
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	// A prompt may come as the one argument, as llama-cli and ollama take
	// it: isagi run -m M "text".
	if fs.NArg() == 1 && *prompt == "" && *promptIDs == "" && *promptFile == "" {
		*prompt = fs.Arg(0)
	} else if fs.NArg() != 0 {
		return base.ArgsError(fs, "unexpected arguments %q", fs.Args())
	}
	if *promptFile != "" {
		if *prompt != "" || *promptIDs != "" {
			return base.Usagef("give --file or --prompt (or --prompt-ids), not both")
		}
		b, err := regfile.ReadRegular(*promptFile, base.MaxTextBytes)
		if err != nil {
			return fmt.Errorf("--file: %w", err)
		}
		*prompt = strings.TrimRight(string(b), "\n")
	}
	// Without -n the reply runs to an end-of-generation token or to the
	// end of the window, whatever the model's window is: a default that
	// fits every model (a fixed 256 equalled the demo's whole window).
	nSet := base.FlagGiven(fs, "n")
	if nSet && *n < 1 {
		return base.Usagef("-n %d: give at least 1 token (or leave -n out to run to the end of the window)", *n)
	}
	if *seed >= 0 {
		p.Seed = uint64(*seed)
	} else {
		p.Seed = uint64(time.Now().UnixNano())
	}
	if err := p.Validate(); err != nil {
		return base.UsageError{Err: err}
	}
	if *prompt != "" && *promptIDs != "" {
		return base.Usagef("give --prompt or --prompt-ids, not both")
	}
	if (cf.messages != "" || cf.showPrompt || cf.templateFile != "" || len(cf.vars) > 0 || cf.noGenPrompt) && !cf.chat {
		return base.Usagef("--messages, --show-prompt, --chat-template-file, --template-var and --no-generation-prompt need --chat")
	}
	if cf.chat && *promptIDs != "" {
		return base.Usagef("--chat renders text: use --prompt or --messages, not --prompt-ids")
	}
	if err := mf.CheckSource(); err != nil {
		return err
	}
	if err := mf.Steer.Check(); err != nil {
		return err
	}
	format, err := ff.Format()
	if err != nil {
		return err
	}
	knobs.format = format
	if err := mf.KV.Check(); err != nil {
		return err
	}
	// The flags given, as opposed to defaulted: with --session they
	// override the session's saved settings.
	knobs.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { knobs.set[f.Name] = true })
	for _, a := range base.FlagAliases() { // -s is --seed, and so on
		if knobs.set[a[0]] {
			knobs.set[a[1]] = true
		}
	}
	if *sessionFile != "" && *promptIDs != "" {
		return base.Usagef("--session takes your next message as text: use --prompt, not --prompt-ids")
	}
	// --file and a prompt argument are in *prompt by now.
	if err := knobs.check(*sessionFile != "", *prompt != ""); err != nil {
		return err
	}
	if *sessionFile == "" {
		// Without a session nothing else can supply a rank or a keep
		// share: the flags must be whole on their own.
		if err := mf.CheckGRC(); err != nil {
			return err
		}
		if err := mf.KV.CheckScorer(fs); err != nil {
			return err
		}
	} else if err := mf.CheckGRCValues(); err != nil {
		return err
	}
	if _, err := knobs.draft.Spec(); err != nil && *sessionFile == "" {
		return err // a session may hold the drafter these flags refine
	}
	if *prompt == "-" {
		// Read one byte past the limit, so that an input of exactly the
		// limit is taken and a longer one (or /dev/zero, which never
		// ends) is refused instead of read until memory runs out.
		b, err := io.ReadAll(io.LimitReader(env.Stdin, base.MaxTextBytes+1))
		if err != nil {
			return fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		if len(b) > base.MaxTextBytes {
			return fmt.Errorf("standard input is larger than %d MiB: give a shorter prompt", base.MaxTextBytes>>20)
		}
		*prompt = strings.TrimRight(string(b), "\n")
	}

	if *sessionFile != "" {
		if !nSet {
			*n = 256 // the session's saved max_tokens applies unless -n is given
		}
		return runSession(env, &mf, *sessionFile, *prompt, p, *n, *force, *verbose, knobs)
	}
	f, tok, err := mf.OpenFile()
	if err != nil {
		return err
	}
	var ids, stops []int32
	harmony := false
	switch {
	case cf.chat:
		tmpl, p, cids, err := cf.render(f, tok, *prompt)
		if err != nil {
			f.Close()
			return err
		}
		if cf.showPrompt {
			defer f.Close()
			scr, flushScr := env.Screen()
			defer flushScr()
			fmt.Fprint(scr, p.Text)
			if !strings.HasSuffix(p.Text, "\n") {
				fmt.Fprintln(scr)
			}
			fmt.Fprintf(scr, "-- %d tokens\n", len(cids))
			return nil
		}
		ids, stops, harmony = cids, tmpl.StopTokens(tok), tmpl.Harmony()
	case *promptIDs != "":
		if ids, err = base.ParseIDs(*promptIDs, tok.VocabSize()); err != nil {
			err = base.UsageError{Err: err}
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
	m, st, err := mf.Load(f, tok)
	if err != nil {
		f.Close()
		return err
	}
	defer m.Close()
	arch, _ := f.Architecture()
	if err := mf.Steer.Apply(st, m, arch, mf.StorePaths().Steer); err != nil {
		return fmt.Errorf("--control-vector: %w", err)
	}

	gen, err := generate.New(st, p)
	if err != nil {
		return err
	}
	if err := mf.KV.Install(gen, p.Seed); err != nil {
		return err
	}
	dr, err := mf.Drafter(&knobs.draft, f, tok, m, st, p)
	if err != nil {
		return err
	}
	if dr != nil {
		defer dr.Cleanup()
		if err := gen.SetSpeculation(dr.Opts); err != nil {
			return err
		}
	}
	ctx, stop := base.Interruptible()
	defer stop()

	// The reply goes to the screen cleaned when stdout is a terminal
	// (Env.Screen); flushed after out, which the later defer flushes first.
	scr, flushScr := env.Screen()
	defer flushScr()
	out := bufio.NewWriter(scr)
	defer out.Flush()
	// A continuation keeps SentencePiece's leading space ("And God said" +
	// " unto"); a chat reply is shown on its own and drops it.
	rp := newReplyPrinter(tok, harmony, *prompt != "" && !cf.chat, stops)
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
		if _, err := out.Write(rp.write(id)); err != nil {
			return err
		}
		return out.Flush() // stream: the reader sees each token as it comes
	}
	if !nSet {
		*n = st.MaxPos() // more than can fit: the window ends the reply
	}
	var constraint generate.Constraint
	if knobs.format != nil {
		v, err := session.GrammarVocab(tok, stops)
		if err != nil {
			return err
		}
		constraint = knobs.format.Constraint(v)
	}
	stats, err := gen.Generate(ctx, ids, generate.Options{MaxTokens: *n, Stop: stops, Constraint: constraint}, emit)
	if !*printIDs {
		out.Write(rp.flush())
	}
	out.WriteByte('\n')
	out.Flush()
	if *verbose {
		fmt.Fprintf(env.Stderr, "%d prompt tokens, %d generated (%s); first token %.0f ms; prefill %.1f tok/s; decode %.1f tok/s; on %s\n",
			stats.PromptTokens, stats.Generated, stats.Reason, float64(stats.TimeToFirst.Microseconds())/1000,
			stats.PrefillTokPerSec(), stats.DecodeTokPerSec(), st.Backend().Name())
		updates := 0
		if dr != nil && dr.Model != nil {
			updates = dr.Model.Updates()
		}
		base.PrintSpec(env.Stderr, stats.Spec, updates)
	}
	if errors.Is(err, model.ErrContextFull) {
		if !nSet && stats.Generated > 0 {
			fmt.Fprintf(env.Stderr, "stopped at the end of the %d-token context window after %d tokens\n", st.MaxPos(), stats.Generated)
			return nil
		}
		return base.ContextFullError(st.MaxPos(), m.CtxLen, base.ModelLabel(m, f), stats.Generated)
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

// sessionKnobs are the geometry knobs of a scripted turn ("": as saved).
type sessionKnobs struct {
	snipe, alpha string
	draft        base.DraftFlags
	// regenerate answers the last message again; edit (from 1) answers
	// the prompt in place of the user's message edit: both keep the old
	// reply as a branch of the session's conversation tree.
	regenerate bool
	edit       int
	// set holds the names of the flags given on the command line
	// (flag.FlagSet.Visit): they override the session's saved settings.
	set map[string]bool
	// format is what --json, --json-schema or --grammar-file hold the
	// reply to (nil: plain text).
	format *session.Format
}

// check refuses the session flags that cannot go together, or that were
// given without --session (hasSession), before anything is opened;
// hasPrompt says whether a prompt was given (--prompt, --file or the
// argument). Each is a mistake in the command line.
func (knobs *sessionKnobs) check(hasSession, hasPrompt bool) error {
	if !hasSession {
		// The flags that act on a saved conversation: without --session
		// there is nothing for them to act on.
		for _, name := range []string{"regenerate", "edit", "snipe", "ogd-alpha", "force-model"} {
			if knobs.set[name] {
				return base.Usagef("--%s acts on a saved conversation: give --session FILE.miku with it", name)
			}
		}
		return nil
	}
	switch {
	case knobs.regenerate && (hasPrompt || knobs.set["edit"]):
		return base.Usagef("--regenerate answers the last message again: give no --prompt or --edit with it")
	case knobs.set["edit"] && knobs.edit < 1:
		// /edit numbers them so too: 0 would silently append instead.
		return base.Usagef("--edit %d: your messages are numbered from 1 (the first of the branch in use)", knobs.edit)
	case knobs.set["edit"] && !hasPrompt:
		return base.Usagef("--edit %d needs --prompt: the new text of your message %d", knobs.edit, knobs.edit)
	case !hasPrompt && !knobs.regenerate:
		return base.Usagef("--session needs --prompt: the next message (or --regenerate)")
	case knobs.set["rank-floor"] || knobs.set["calib"]:
		return base.Usagef("--rank-floor and --calib are not available with --session, which compresses as the TUI's /set rank does")
	}
	return nil
}

// runSession is run --session: one turn of a saved conversation, streamed,
// then the session saved again. The model is --model or --demo, opened as
// the TUI opens it.
func runSession(env base.Env, mf *base.ModelFlags, file, prompt string, p sample.Params, n int, force, verbose bool, knobs sessionKnobs) (err error) {
	if prompt == "" && !knobs.regenerate {
		// --prompt - read an empty stdin: the checks before saw a prompt.
		return base.Usagef("--session needs --prompt: the next message")
	}
	set := session.Settings{Temperature: p.Temperature, TopK: p.TopK, TopP: p.TopP, MinP: p.MinP,
		RepeatPenalty: p.RepeatPenalty, Seed: p.Seed, MaxTokens: n}
	// Threads and Ctx come from the flags in mf.openSession; the GRC cache
	// and the profiles are the TUI's.
	opts := mf.SessionOptions(session.Options{Settings: set, AppVersion: env.Version})
	// The shared opener, as the TUI's: --model (resolved from the store)
	// or --demo (the embedded model).
	s, err := mf.OpenSession(opts)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := base.Interruptible()
	defer stop()
	// Hold the file's lock from load to save, so that a concurrent run on
	// the same file waits for this one's turn to be saved, loads it, and
	// adds its own after it, instead of saving over it.
	now, cancel := context.WithCancel(ctx)
	cancel()
	lock, err := miku.Lock(now, file)
	if errors.Is(err, miku.ErrLocked) {
		fmt.Fprintf(env.Stderr, "isagi: %s is in use by another process: waiting for it (ctrl+c stops)\n", file)
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
		notes, err := s.Files().Load(context.Background(), file, session.LoadOptions{Force: force})
		if err != nil {
			return err
		}
		for _, note := range notes {
			fmt.Fprintln(env.Stderr, "isagi:", note)
		}
	}
	geo, err := s.Geometry().Load()
	if err != nil {
		fmt.Fprintln(env.Stderr, "isagi: geometry profile not loaded:", err)
	}
	for _, note := range s.Notes() {
		fmt.Fprintln(env.Stderr, "isagi:", note)
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
	// The mechanisms first, so that a --rank given with them builds once;
	// the KV projection last, as the rank sizes it.
	mech := mf.Mech.Knobs()
	setMech := func(kvs [][2]string) error {
		for _, kv := range kvs {
			if name := strings.ReplaceAll(kv[0], "_", "-"); knobs.set[name] {
				if err := s.SetCtx(ctx, kv[0], kv[1], nil); err != nil {
					return fmt.Errorf("--%s: %w", name, err)
				}
			}
		}
		return nil
	}
	if err := setMech(mech[:len(mech)-1]); err != nil {
		return err
	}
	if knobs.set["rank"] || knobs.set["slots"] || knobs.set["alloc"] {
		// The TUI's /set path: the compression is built (or read from
		// the shared cache) by the session, and saved with its settings.
		rank := strconv.Itoa(s.Settings().Rank)
		if knobs.set["rank"] {
			rank = mf.Rank
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
		for _, o := range [][2]string{{"slots", mf.Slots}, {"alloc", mf.Alloc}} {
			if knobs.set[o[0]] {
				if err := s.Set(o[0], o[1]); err != nil {
					return fmt.Errorf("--%s: %w", o[0], err)
				}
			}
		}
		drew := false
		progress := func(done, total int) {
			drew = true
			fmt.Fprintf(env.Stderr, "\rGRC: [%-30s] %d/%d blocks ", base.Bar(done, total, 30), done, total)
		}
		err := s.SetCtx(ctx, "rank", rank, progress)
		if drew {
			fmt.Fprintln(env.Stderr)
		}
		if err != nil {
			return fmt.Errorf("--rank %s: %w", rank, err)
		}
	}
	if err := setMech(mech[len(mech)-1:]); err != nil {
		return err
	}
	for _, kv := range mf.KV.Knobs() {
		if name := strings.ReplaceAll(kv[0], "_", "-"); knobs.set[name] {
			if err := s.Set(kv[0], kv[1]); err != nil {
				return fmt.Errorf("--%s: %w", name, err)
			}
		}
	}
	if mf.Steer.Given() {
		if err := s.Set("steer", mf.Steer.Spec()); err != nil {
			return fmt.Errorf("--control-vector: %w", err)
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
			fmt.Fprintf(env.Stderr, "\rGRC (drafter): [%-30s] %d/%d blocks ", base.Bar(done, total, 30), done, total)
		}
		flags := map[string]string{"draft": "draft", "draft_n": "draft-n", "online_basis": "online-basis"}
		for _, kv := range knobs.draft.Knobs() {
			if !knobs.set[flags[kv[0]]] {
				continue
			}
			err := s.SetCtx(ctx, kv[0], kv[1], progress)
			if drew {
				fmt.Fprintln(env.Stderr)
				drew = false
			}
			if err != nil {
				return fmt.Errorf("--%s: %w", flags[kv[0]], err)
			}
		}
	}
	scr, flushScr := env.Screen()
	defer flushScr()
	out := bufio.NewWriter(scr)
	emit := func(e session.Event) {
		out.WriteString(e.Piece)
		out.Flush()
	}
	if err := s.SetFormat(knobs.format); err != nil {
		return err
	}
	var turn session.Turn
	switch cv := s.Conversation(); {
	case knobs.regenerate:
		turn, err = cv.Regenerate(ctx, emit)
	case knobs.edit > 0:
		msg, ok := session.UserMessage(cv.Branch(), knobs.edit)
		if !ok {
			return fmt.Errorf("--edit %d: the conversation in %s has fewer messages of yours", knobs.edit, file)
		}
		turn, err = cv.Edit(ctx, msg.ID, prompt, emit)
	default:
		turn, err = s.Send(ctx, prompt, emit)
	}
	out.WriteByte('\n')
	out.Flush()
	if err != nil {
		return err
	}
	if verbose {
		used, limit := s.Conversation().ContextUsed()
		fmt.Fprintf(env.Stderr, "%d new prompt tokens, %d generated (%s); decode %.1f tok/s; context %d/%d; dropped %d turns; on %s\n",
			turn.PromptTok, turn.Tokens, turn.Stop, turn.DecodeTokS, used, limit, turn.Dropped, s.Info().Backend)
		if i := s.Info(); i.Rank > 0 {
			fmt.Fprintf(env.Stderr, "GRC rank %d (%s): %.1f%% of the energy kept\n", i.Rank, i.RankSpec, 100*i.RankEnergy)
		}
		switch c := turn.COG; {
		case c != nil:
			from := "not served"
			if c.Retrieved {
				from = "served"
			}
			fmt.Fprintf(env.Stderr, "cog: %s, distance %.4f, %s from memory: %s; manifold growth %.4f, %d trajectories\n",
				strings.ToUpper(c.Tier), c.Distance, from, c.Why, c.Growth, c.Trajectories)
		case !geo:
			fmt.Fprintln(env.Stderr, "cog: off (no geometry profile for this model: isagi calibrate)")
		}
		if g := turn.Geometry; g != nil {
			fmt.Fprintf(env.Stderr, "teh: prompt %.1f%%, reply %.1f%%, peak %.1f%%\n", g.Prompt.Overall, g.Reply.Overall, g.Peak)
		}
		if turn.Spec != nil {
			_, updates := s.Drafting().Speculation()
			base.PrintSpec(env.Stderr, *turn.Spec, updates)
		}
	}
	return sessionTurnError(s, turn, s.Files().Save(context.Background(), lock.Path(), session.SaveOptions{Lock: lock}))
}

// usageHead and usageTail frame the flags in `isagi run --help`.
const (
	usageHead = `Usage: isagi run (--model FILE.gguf | --demo) [--prompt TEXT | --prompt-ids 1,2,3] [--chat ...] [flags]

Streams the model's continuation of a prompt to stdout. An empty prompt
starts from BOS. With --chat the prompt is the user's turn, rendered with the
model's chat template, and the reply ends at the template's end-of-turn token.
The run exits 0 when it stops at -n tokens, at an end-of-generation token,
or, without -n, at the end of the context window (a completion's natural
end; stderr says so); and 1 when the window filled before the -n tokens
asked for (stderr says which limit).
Flags:
`
	usageTail = `
Examples:
  isagi run --demo --prompt "And God said" -n 48
  isagi run --model kjv-q8_0.gguf --prompt "And God said" -n 48
  isagi run --model kjv-f32.gguf --prompt-ids 1,300,391,394 --temp 0 --ids
  echo "The LORD is my shepherd" | isagi run --model kjv-q8_0.gguf --prompt - --seed 7
  isagi run --model qwen.gguf --chat --prompt "Name three rivers."
  isagi run --model tokenizer.gguf --chat --messages conv.json --show-prompt
  isagi run --model qwen3.gguf --chat --template-var enable_thinking=false --prompt "Hi"
`
)
