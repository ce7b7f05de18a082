// Package tokenizer turns text into token ids and back, exactly as the
// reference implementations do for the vocabularies GGUF files carry.
//
// Two vocabulary families are supported, selected by tokenizer.ggml.model:
//
//   - "llama": SentencePiece BPE (Llama 2, TinyLlama, Mistral): score-ordered
//     merges over code points, a dummy-prefix space, ' ' written as U+2581,
//     and byte fallback (<0xNN>) for code points without a piece.
//   - "gpt2": byte-level BPE (Llama 3, Qwen2/3, SmolLM2, gpt-oss): a
//     pre-tokenizer named by tokenizer.ggml.pre splits the text into words,
//     each word's bytes are mapped to GPT-2's printable byte alphabet and
//     merged by rank.
//
// Security: text from a user is never parsed into control tokens. Encode
// treats its input as plain text (only USER_DEFINED added tokens such as
// Qwen3's <think> are matched whole, as llama.cpp does with
// parse_special=false). Markup that a chat template produced is tokenised
// with EncodePrompt, which matches control-token text only outside the byte
// ranges the caller marks as user content.
//
// A Tokenizer is immutable after FromGGUF and safe for concurrent use. A
// Decoder is not: use one per stream.
package tokenizer

import (
	"errors"
	"fmt"
	"slices"

	"github.com/isagi-lab/isagi/engine/gguf"
)

// TokenType is the llama.cpp token type stored in tokenizer.ggml.token_type.
type TokenType int32

// Token types, numbered as in llama.cpp's llama_token_type.
const (
	TypeUndefined   TokenType = 0
	TypeNormal      TokenType = 1
	TypeUnknown     TokenType = 2
	TypeControl     TokenType = 3
	TypeUserDefined TokenType = 4
	TypeUnused      TokenType = 5
	TypeByte        TokenType = 6
)

// Model is the vocabulary family of a Tokenizer.
type Model int

// The supported vocabulary families.
const (
	// ModelSPM is SentencePiece BPE (tokenizer.ggml.model = "llama").
	ModelSPM Model = iota + 1
	// ModelBPE is GPT-2 style byte-level BPE (tokenizer.ggml.model = "gpt2").
	ModelBPE
)

// String returns the GGUF name of the model family.
func (m Model) String() string {
	switch m {
	case ModelSPM:
		return "llama"
	case ModelBPE:
		return "gpt2"
	}
	return fmt.Sprintf("Model(%d)", int(m))
}

// ErrUnsupported reports a vocabulary this package cannot tokenise exactly.
var ErrUnsupported = errors.New("unsupported tokenizer")

// NoToken is the id reported for a special token the vocabulary lacks.
const NoToken int32 = -1

// Tokenizer holds one vocabulary and the rules to apply it. It is immutable
// and safe for concurrent use.
type Tokenizer struct {
	model  Model
	pre    preTokenizer
	preTag string

	tokens []string
	types  []TokenType
	scores []float32 // SPM only
	ids    map[string]int32

	bos, eos, unk int32
	addBOS        bool
	addEOS        bool
	spacePrefix   bool // SPM add_space_prefix
	spmSplit      bool // SPM: merges never cross the start of a word
	ignoreMerges  bool // BPE: a word that is a whole token skips the merges
	nfc           bool // BPE: NFC-normalise raw text first (Qwen2/3, as HF does)

	eog []int32 // sorted end-of-generation ids

	byteIDs [256]int32       // SPM: <0xNN> token; BPE: token of the byte's GPT-2 character
	merges  map[uint64]merge // BPE: (left id << 32 | right id) -> merge
	all     specialIndex     // control, user-defined and unknown tokens
	user    specialIndex     // user-defined tokens only (matched in plain text)
	pieces  []byte           // decoded bytes of every token, concatenated
	offs    []uint32         // pieces[offs[i]:offs[i+1]] is token i's text
	hidden  []bool           // token i is a control token (rendered only on request)
}

type merge struct {
	rank   int32
	result int32
}

// Keys read from the GGUF metadata.
const (
	keyModel       = "tokenizer.ggml.model"
	keyPre         = "tokenizer.ggml.pre"
	keyTokens      = "tokenizer.ggml.tokens"
	keyScores      = "tokenizer.ggml.scores"
	keyTypes       = "tokenizer.ggml.token_type"
	keyMerges      = "tokenizer.ggml.merges"
	keyBOS         = "tokenizer.ggml.bos_token_id"
	keyEOS         = "tokenizer.ggml.eos_token_id"
	keyUNK         = "tokenizer.ggml.unknown_token_id"
	keyEOT         = "tokenizer.ggml.eot_token_id"
	keyEOM         = "tokenizer.ggml.eom_token_id"
	keyAddBOS      = "tokenizer.ggml.add_bos_token"
	keyAddEOS      = "tokenizer.ggml.add_eos_token"
	keySpacePrefix = "tokenizer.ggml.add_space_prefix"
)

// eogTexts are the token texts llama.cpp treats as end of generation
// whatever the metadata says (llama-vocab.cpp, special_eog_ids).
// <|return|> and <|call|> end a reply in OpenAI's harmony format (gpt-oss,
// o200k_harmony).
var eogTexts = [...]string{
	"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
	"<|eom_id|>", "<EOT>", "_<EOT>", "<|end_of_text|>", "<end_of_utterance>",
	"<|return|>", "<|call|>",
}

// FromGGUF builds the tokenizer described by f's tokenizer.ggml.* metadata.
func FromGGUF(f *gguf.File) (*Tokenizer, error) {
	t, err := fromGGUF(f)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %s: %w", f.Path, err)
	}
	return t, nil
}

func fromGGUF(f *gguf.File) (*Tokenizer, error) {
	model, err := f.String(keyModel)
	if err != nil {
		return nil, err
	}
	tokens, err := f.Strings(keyTokens)
	if err != nil {
		return nil, err
	}
	if len(tokens) == 0 || len(tokens) > 1<<30 {
		return nil, fmt.Errorf("%s: %d tokens", keyTokens, len(tokens))
	}
	t := &Tokenizer{
		tokens: tokens,
		types:  make([]TokenType, len(tokens)),
		ids:    make(map[string]int32, len(tokens)),
		bos:    NoToken, eos: NoToken, unk: NoToken,
	}
	if _, ok := f.Lookup(keyTypes); ok {
		types, err := f.Int32s(keyTypes)
		if err != nil {
			return nil, err
		}
		if len(types) != len(tokens) {
			return nil, fmt.Errorf("%s has %d entries for %d tokens", keyTypes, len(types), len(tokens))
		}
		for i, ty := range types {
			t.types[i] = TokenType(ty)
		}
	} else {
		for i := range t.types {
			t.types[i] = TypeNormal
		}
	}
	for i, s := range tokens {
		if _, dup := t.ids[s]; !dup { // first id wins, as llama.cpp's map insertion
			t.ids[s] = int32(i)
		}
	}
	t.bos, err = optionalID(f, keyBOS, len(tokens))
	if err != nil {
		return nil, err
	}
	t.eos, err = optionalID(f, keyEOS, len(tokens))
	if err != nil {
		return nil, err
	}
	t.unk, err = optionalID(f, keyUNK, len(tokens))
	if err != nil {
		return nil, err
	}

	switch model {
	case "llama":
		t.model = ModelSPM
		if err := t.initSPM(f); err != nil {
			return nil, err
		}
	case "gpt2":
		t.model = ModelBPE
		if err := t.initBPE(f); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: %s = %q (want \"llama\" or \"gpt2\")", ErrUnsupported, keyModel, model)
	}

	if t.addBOS, err = optionalBool(f, keyAddBOS, t.model == ModelSPM); err != nil {
		return nil, err
	}
	if t.addEOS, err = optionalBool(f, keyAddEOS, false); err != nil {
		return nil, err
	}
	if err := t.initEOG(f); err != nil {
		return nil, err
	}
	t.initSpecials()
	t.initPieces()
	return t, nil
}

func optionalID(f *gguf.File, key string, n int) (int32, error) {
	if _, ok := f.Lookup(key); !ok {
		return NoToken, nil
	}
	u, err := f.Uint32(key)
	if err != nil {
		return NoToken, err
	}
	if int64(u) >= int64(n) {
		return NoToken, fmt.Errorf("%s = %d is outside the vocabulary of %d tokens", key, u, n)
	}
	return int32(u), nil
}

func optionalBool(f *gguf.File, key string, def bool) (bool, error) {
	if _, ok := f.Lookup(key); !ok {
		return def, nil
	}
	return f.Bool(key)
}

func (t *Tokenizer) initEOG(f *gguf.File) error {
	add := func(id int32) {
		if id >= 0 && !slices.Contains(t.eog, id) {
			t.eog = append(t.eog, id)
		}
	}
	add(t.eos)
	for _, key := range []string{keyEOT, keyEOM} {
		id, err := optionalID(f, key, len(t.tokens))
		if err != nil {
			return err
		}
		add(id)
	}
	for _, s := range eogTexts {
		if id, ok := t.ids[s]; ok {
			add(id)
		}
	}
	// A harmony vocabulary ends a reply with <|return|> or <|call|>; its
	// <|end|> only closes one message of it (the chain of thought before
	// the answer), so it must not stop generation. llama.cpp recognises
	// the vocabulary by having all three and drops <|end|> the same way.
	ret, okR := t.ids["<|return|>"]
	call, okC := t.ids["<|call|>"]
	end, okE := t.ids["<|end|>"]
	if okR && okC && okE && slices.Contains(t.eog, ret) && slices.Contains(t.eog, call) {
		t.eog = slices.DeleteFunc(t.eog, func(id int32) bool { return id == end })
	}
	slices.Sort(t.eog)
	return nil
}

// Model reports the vocabulary family.
func (t *Tokenizer) Model() Model { return t.model }

// PreTokenizer reports the pre-tokenizer in use: the tokenizer.ggml.pre
// value for byte-level BPE, "" for SentencePiece.
func (t *Tokenizer) PreTokenizer() string { return t.preTag }

// VocabSize is the number of tokens.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// BOS is the beginning-of-sequence id, or NoToken.
func (t *Tokenizer) BOS() int32 { return t.bos }

// EOS is the end-of-sequence id, or NoToken.
func (t *Tokenizer) EOS() int32 { return t.eos }

// AddBOS reports whether the model expects BOS before a prompt
// (tokenizer.ggml.add_bos_token; SentencePiece defaults to true).
func (t *Tokenizer) AddBOS() bool { return t.addBOS && t.bos >= 0 }

// AddEOS reports whether the model expects EOS after a prompt.
func (t *Tokenizer) AddEOS() bool { return t.addEOS && t.eos >= 0 }

// Piece returns the vocabulary string of id ("" if id is out of range), in
// the vocabulary's own spelling (U+2581 for space in SentencePiece, Ġ for
// space in byte-level BPE).
func (t *Tokenizer) Piece(id int32) string {
	if id < 0 || int(id) >= len(t.tokens) {
		return ""
	}
	return t.tokens[id]
}

// Type returns the token type of id (TypeUndefined if out of range).
func (t *Tokenizer) Type(id int32) TokenType {
	if id < 0 || int(id) >= len(t.types) {
		return TypeUndefined
	}
	return t.types[id]
}

// TokenID returns the id of the token spelled s in the vocabulary.
func (t *Tokenizer) TokenID(s string) (int32, bool) {
	id, ok := t.ids[s]
	return id, ok
}

// IsEndOfGeneration reports whether id ends a reply: EOS, the metadata's
// EOT/EOM ids, and the end-of-turn tokens llama.cpp recognises by their text
// (<|im_end|>, <|eot_id|>, <end_of_turn>, <|end_of_text|>, <|endoftext|>,
// harmony's <|return|> and <|call|>, …). A harmony vocabulary's <|end|> is
// not one: it ends a message, not the reply.
func (t *Tokenizer) IsEndOfGeneration(id int32) bool {
	_, ok := slices.BinarySearch(t.eog, id)
	return ok
}

// EndOfGeneration returns the sorted end-of-generation ids. The slice is a
// copy.
func (t *Tokenizer) EndOfGeneration() []int32 { return slices.Clone(t.eog) }

// IsControl reports whether id is a control token (BOS, EOS, <|im_start|>, …).
func (t *Tokenizer) IsControl(id int32) bool { return t.Type(id) == TypeControl }
