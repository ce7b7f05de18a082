package session

import (
	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/kvpress"
)

// What the session's clients (the TUI, the server) need of the engine's
// vocabulary, named here so that they reach the engine through the
// session and import no engine package (internal/layers checks it).

// Message is one message of a conversation, as Transcript returns and
// SetTranscript takes them.
type Message = chat.Message

// MessageField is a further key of a Message (tool_calls, tool_call_id…).
type MessageField = chat.Field

// SpecStats is a turn's speculative decoding (Turn.Spec), as the
// generator counts it.
type SpecStats = generate.SpecStats

// EvictInterval is how many entries the KV cache runs past the eviction's
// budget before it evicts (KVStatus.Budget): the session evicts at the
// generator's default interval.
const EvictInterval = generate.DefaultEvictInterval

// CheckKVScorer returns nil when name is a KV eviction scorer that the
// kv_scorer setting accepts, and otherwise the error that setting gives.
func CheckKVScorer(name string) error {
	_, err := kvpress.ParseKind(name)
	return err
}

// CheckSlots returns nil when list is a set of GRC slots that the slots
// setting accepts, and otherwise the error that setting gives.
func CheckSlots(list string) error {
	_, err := grc.ParseSlots(list)
	return err
}

// CheckAlloc returns nil when name is a GRC rank allocation that the alloc
// setting accepts, and otherwise the error that setting gives.
func CheckAlloc(name string) error {
	_, err := grc.ParseAlloc(name)
	return err
}
