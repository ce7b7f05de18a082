package base

// Bounds on the files commands read whole into memory. Each is far above
// any real input of its kind; past it the file is refused with its size
// and the limit rather than read until memory runs out.
const (
	// MaxTextBytes bounds texts and conversations: --calib, ppl --file
	// and --messages.
	MaxTextBytes = 64 << 20
	// MaxTemplateBytes bounds --chat-template-file: chat templates are
	// kilobytes.
	MaxTemplateBytes = 1 << 20
)
