// Package grammar constrains generation to a grammar: at each step it says
// which tokens of the vocabulary may come next, so that a sampler draws only
// those, and it advances as tokens are chosen. It reads GBNF grammars as
// llama.cpp writes them (Parse) and converts JSON Schemas into GBNF
// (FromJSONSchema, FromJSONSchemaStrict, JSONObjectGrammar) for OpenAI's
// response_format and tools.
//
// # Use
//
//	g, err := grammar.Parse(text)         // once per grammar; shareable
//	v, err := grammar.NewVocab(toks, eog) // once per model; shareable
//	m := grammar.NewMatcher(g, v)         // once per generation
//	mask := m.NewMask()
//	for !done {
//		m.Allowed(mask)       // the tokens allowed now
//		mask.Apply(logits)    // or test mask.Has(id) on a sampled id
//		err := m.Accept(id)   // advance
//	}
//
// Control tokens must be given to NewVocab as empty, so that they are never
// produced as text; the end-of-generation tokens are allowed exactly where
// the root rule is complete (Done). Allows checks one token without a mask,
// for samplers that draw first and check after.
//
// # Grammars
//
// Supported GBNF: rules `name ::= …` (a newline ends a rule unless it
// follows `|` or `::=` or lies inside parentheses), alternatives, string
// literals and character classes with the escapes \n \t \r \\ \" \[ \]
// \xHH \uHHHH \UHHHHHHHH (each a code point), negated classes, `.` (any
// code point), groups, the repetitions * + ? {m} {m,} {m,n} (counts up to
// 10000), comments, and `root` as the start rule. Refused, each with one
// sentence naming the line:column and text: token references (<…>, !<…>),
// undefined or twice-defined rules, left recursion (a rule reaching itself
// without reading a character, including a * or + over something that can
// be empty), rules that can never finish, classes matching nothing, and
// surrogate code points. Names may also hold '_', which llama.cpp refuses.
//
// JSON Schema: the subset OpenAI's structured outputs accept (objects,
// arrays, strings, numbers, integers, booleans, null, enum, const, anyOf,
// type arrays, nullable, $defs/definitions with $ref, recursion included)
// plus minItems/maxItems, minLength/maxLength and the formats date, time,
// date-time and uuid. Properties come in declared order, required ones
// first; whitespace between tokens is bounded like llama.cpp's converter
// bounds it, and numbers to 16 digits a part, so a model cannot loop on
// either. Keywords a grammar cannot enforce (pattern, minimum, allOf, not,
// uniqueItems, other formats…) are refused with their JSON path. See
// FromJSONSchema for the treatment of additionalProperties.
//
// # Design
//
// Bytes, not code points. Tokens are byte strings that may end in the
// middle of a UTF-8 character, so the grammar is compiled to bytes: a
// literal becomes its UTF-8 bytes, and a class with characters beyond ASCII
// becomes a rule whose alternatives spell its UTF-8 encodings as byte
// ranges (lead bytes with equal continuations merged). A token cut
// mid-character then needs no special state: the matcher just stands inside
// that rule. Only well-formed UTF-8 can match, so no overlong forms, no
// encoded surrogates and no stray continuation bytes are ever generated.
// Bytes that no set of the grammar tells apart share a byte class, which
// keeps the tables narrow (about 40 classes for JSON).
//
// Stacks. Grammars are context-free (JSON nests without bound), so, as in
// llama.cpp, the matcher is a pushdown automaton: a configuration is a stack
// of positions in the compiled program, and the set of live stacks is what
// may still be matched. Frames are interned (position, frame below), so
// stacks share their tails and compare by one integer; a reference at the
// end of an alternative pushes nothing (a tail call), so repetitions, which
// are rewritten into right-recursive rules, do not grow the stack.
//
// States. A set of stacks is interned as a state, and the transition of a
// state on a byte class is computed once, by advancing each stack and
// expanding rule references until every stack is at a byte, and then
// cached: the automaton is determinised lazily, on the paths the vocabulary
// and the generation actually take. Left recursion is refused at parse time
// because the expansion would not end. Every rule is checked to be able to
// finish, so every live stack can complete and a token is allowed exactly
// when its bytes lead to a non-empty state. The caches are bounded (16384
// states, a million frames); past that the matcher starts over from its
// current state, which only costs recomputation.
//
// Masks. NewVocab lays the vocabulary out once as a byte trie in
// depth-first preorder, with each node's subtree end, so a mask is one pass
// over flat arrays carrying the state reached at each depth: a byte with no
// transition drops its whole subtree with one jump. Two more things keep a
// step far from a scan of the vocabulary. A subtree is taken whole when
// every ASCII byte in it leads the state back to itself and (if it holds
// multi-byte characters, all well-formed from that node on) every UTF-8
// character does too: inside a JSON string this covers nearly the whole
// vocabulary with a few thousand node visits. And since the walk settles
// the trie's token list in order, it records allowed and refused runs and
// writes only the smaller side, starting from the mask of all text tokens
// when most are allowed. Finally each state's mask is kept in a small
// cache (64 masks), so a state met again, such as the next character of a
// string, costs a 16 KiB copy at a 128k vocabulary.
//
// Allocation. Allowed, Accept and Allows allocate nothing once the states
// they meet exist; creating a state or frame grows maps and slices
// (amortised), and the first 64 cached masks are allocated as they fill.
//
// A Matcher is for one generation at a time; Grammar and Vocab are
// read-only and may be shared by any number of matchers.
//
// Measured with the llama3 vocabulary (128256 tokens, 274521 trie nodes) on
// a JSON-schema grammar, two shared CPU cores: a mask inside a string,
// never seen before but with transitions known, about 75 µs; between keys
// or in a number 2–9 µs; a cached state under 0.1 µs; a whole document
// with a fresh matcher about 45 µs a token, every state built from scratch.
// A 1B-model decode step is 80–90 ms on this CPU and about 5 ms on a GPU.
package grammar
