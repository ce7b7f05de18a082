// Package evalcmd is `isagi eval`: the geometry profile on held-out
// prompts (teh, snipe, refusals), the memory gate (cog), Safe OGD (ogd),
// KV eviction (kv), trajectory caching (gtc) and the overlap of two
// profiles.
package evalcmd

import (
	"flag"
	"fmt"

	"github.com/isagi-lab/isagi/internal/cli/base"
)

// Subcommands are eval's subcommands, in the order the help lists them:
// what Main dispatches to and what the top-level help lists.
func Subcommands() []base.Command {
	geo := func(which string) base.Main {
		return func(env base.Env, args []string) error { return cmdEvalGeometry(env, which, args) }
	}
	return []base.Command{
		{Name: "teh", Args: "--model M.gguf", Summary: "detection and false positives of every TEH gauge on held-out prompts", Main: geo("teh")},
		{Name: "snipe", Args: "--model M.gguf", Summary: "harm reduction and benign collateral of every Snipe projector", Main: geo("snipe")},
		{Name: "refusals", Args: "--model M.gguf", Summary: "refusals with and without the projectors and steering, and their first-token KL", Main: geo("refusals")},
		{Name: "cog", Args: "--model M.gguf", Summary: "precision and recall of answering from memory (the living manifold)", Main: cmdEvalCOG},
		{Name: "ogd", Args: "--model M.gguf", Summary: "Safe OGD chains beside unexplored ones: harm gauge and refusals", Main: cmdEvalOGD},
		{Name: "kv", Args: "--model M.gguf", Summary: "KV-cache eviction: retrieval, perplexity and speed of every scorer", Main: cmdEvalKV},
		{Name: "gtc", Args: "--model M.gguf --text TEXT", Summary: "trajectory caching: coverage and first-order-corrected predictions of hidden states", Main: cmdEvalGTC},
		{Name: "overlap", Args: "PROFILE_A PROFILE_B", Summary: "how much two profiles' UGT bases agree (a model and its quantisation)", Main: cmdOverlap},
		{Name: "interchange", Args: "--model A.gguf --model-b B.gguf", Summary: "UGT between two independently trained models: aligned overlap and component interchange", Main: cmdEvalInterchange},
	}
}

// Main is `isagi eval`: the profile on the held-out split (teh, snipe,
// refusals), and the cog, ogd, kv and overlap evaluations.
func Main(env base.Env, args []string) error {
	if len(args) > 0 && base.IsHelp(args[0]) {
		fmt.Fprint(env.Stderr, evalUsage)
		return flag.ErrHelp
	}
	subs := Subcommands()
	if len(args) > 0 {
		if c, ok := base.Lookup(subs, args[0]); ok {
			return c.Main(env, args[1:])
		}
	}
	return base.SubcommandError("eval", subs, args)
}

// evalUsage is the help of `isagi eval`.
const evalUsage = `Usage: isagi eval teh|snipe|refusals|cog|ogd [--model FILE | --demo] [--profile P] [--set DIR] [--json]
       isagi eval kv --model FILE (--haystack TEXT | --cases FILE | --ppl TEXT) [--json]
       isagi eval gtc --model FILE --text TEXT [--keep 0.25] [--horizon T] [--json]
       isagi eval overlap PROFILE_A PROFILE_B
       isagi eval interchange --model A.gguf --model-b B.gguf [--json]

  teh      detection rate and false positives of every TEH gauge on the
           held-out prompts, at the threshold calibration chose, its
           AUROC over every threshold and its detection rate at 1 % false
           positives (TPR at 1 % FPR); --positions also reads the gauges at
           the last prompt token and over the greedy reply
  snipe    harm reduction and benign collateral of every projector on the
           held-out prompts and text
  refusals Heretic's metric: refusals among the held-out harmful prompts
           (greedy replies, counted by refusal markers) with no projector,
           each category's, all of them, the difference-in-means
           baseline direction, and steering against the refusal direction
           (--steer-scales) or by a control vector (--control-vector);
           and each one's first-token KL divergence on the held-out
           harmless prompts
  cog      precision and recall of answering from memory (the living
           manifold) on a held-out set: true repeats (word for word, and
           in other case, spacing or punctuation), near-misses (one name,
           number or negation changed) and unrelated questions, with the
           distance histograms — for the profile's gate and, for
           comparison, the bare RETRIEVE tier
  ogd      Safe OGD on generated text: exploration chains from held-out
           benign prompts beside the same chains unexplored, with the harm
           gauge, flags at τ and refusals on every reply (isagi eval ogd
           --help)
  kv       KV-cache eviction: retrieval accuracy of every scorer at every
           keep share (RULER-style cases), perplexity under eviction, and
           decode speed at a long context (isagi eval kv --help)
  gtc      trajectory caching (docs/gtc.md): coverage of a cache of
           hidden-state records and how well the nearest record's next T
           states, as stored and first-order corrected, predict the
           model's own (isagi eval gtc --help)
  overlap  bilateral overlap ‖B_Aᵀ B_B‖²_F / k of two profiles' UGT bases
           (1: the same subspace, 0: orthogonal) — e.g. a model and its
           quantisation
  interchange
           UGT between two independently trained models of one
           architecture: the overlap of their bases after an orthogonal
           alignment, beside chance and controls, and what swapping one
           model's UGT component for the other's costs (isagi eval
           interchange --help)

--set DIR measures on another held-out set (CATEGORY.jsonl and
benign.jsonl), such as the chat fixture's. A tiny text model (like the
demo) cannot tell harm from benign by meaning: measure on a chat model.
What each figure is, and the chat fixture's figures: docs/geometry.md.

Examples:
  isagi eval cog --demo
  isagi eval teh --model testdata/models/chat.gguf --set scripts/fixtures/chat/heldout --positions
`
