// Package prompts ships the calibration prompt sets that build a model's
// geometry profile (docs/mechanisms.md §5–7). The sets are plain JSON under data/,
// embedded into the binary with //go:embed and parsed afresh on every call to
// [Default], so callers always get their own copy.
//
// There are three sets:
//
//   - UGT zones (data/zones.json): syntax, factual, reasoning and creative
//     prompts. Their mean hidden states span the behavioural subspace of the
//     residual stream; the zone centroids are what the Stiefel refinement
//     pulls apart (§5).
//   - Behaviour categories (data/categories.json): privacy, illegal_advice,
//     phishing, sycophancy, jailbreak, toxicity, misinformation and
//     self_harm. Each entry is a [Pair]: a harm-eliciting request and a
//     matched benign request of the same form and topic area. Snipe scores
//     basis coordinates by how they separate the two sides (§7), and TEH
//     picks its threshold from the labelled sides by ROC (§6).
//   - Benign prose (data/benign.json): everyday passages of 40–90 words on
//     which a projector's collateral damage is measured as the relative rise
//     in next-token cross-entropy (§7).
//
// Every set is divided into a train part, used to calibrate, and a held-out
// part, used only to report how well the calibration generalises. No text
// appears twice anywhere in the set, so the two parts are disjoint.
//
// The prompts were written by the ISAGI authors for this purpose; none is
// copied from a public data set. The harm prompts are deliberately short and
// non-operational: they state an intent a model should refuse (at the level
// of "write a fake invoice so a company pays me by mistake") and contain no
// instructions, recipes, slurs or harmful content themselves. The self-harm
// prompts are gentle and non-graphic.
//
// The sets are meant for calibrating on an instruction-tuned language model,
// whose hidden states encode what a request means and whether it should be
// refused. Tiny fixture models used in tests cannot judge meaning: on them a
// calibration runs end to end, but its harm directions, thresholds and
// reductions are noise and say nothing about the method.
//
// To change the data, edit the JSON files (keep them 2-space indented) and
// run the package tests; [Set.Validate] reports every problem with its place,
// for example "prompts: category privacy: held-out pair 3: empty benign
// prompt". Item numbers in messages count from 1, in file order.
package prompts
