package tui

import (
	"fmt"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/session"
)

// hwInterval is the telemetry poll period: 2 Hz at most.
const hwInterval = 500 * time.Millisecond

// hwMsg is one telemetry sample, taken in a command goroutine.
type hwMsg struct {
	stats gpu.Stats
	err   error
}

// hardwarePane says which device runs the model and shows GPU telemetry,
// or says plainly that there is none. Between replies it polls the source
// itself; while a reply streams it shows the readings of that reply's
// Meter instead, so the device is read by one sampler at a time and the
// pane shows the load of generation as it happens.
type hardwarePane struct {
	src     gpu.Source
	compute string // the device that runs the model, e.g. "cpu avx2 × 2 threads"
	stats   gpu.Stats
	err     error
	have    bool

	live    *gpu.Meter   // the streaming reply's sampler, or nil
	thermal gpu.Decision // the thermal controller's newest decision
	decided bool
	pending bool // thermal was decided during the reply: it applies when the reply ends
}

// cpuLabel names the CPU path that runs the model, as the Model pane does.
func cpuLabel(i session.Info) string {
	if i.Threads > 0 {
		return fmt.Sprintf("cpu %s × %d threads", i.Kernels, i.Threads)
	}
	return "cpu " + i.Kernels
}

// serialSource lets a Source be read from the poll's command goroutines
// and a Meter's goroutine without two calls at once (gpu.Source asks for
// one at a time; a poll armed just before a reply can fire during it).
type serialSource struct {
	mu  sync.Mutex
	src gpu.Source
}

func (s *serialSource) Sample() (gpu.Stats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Sample()
}

// poll samples after hwInterval. With no source it never ticks. While a
// reply streams, the tick reads its Meter's newest sample rather than the
// device.
func (h *hardwarePane) poll() tea.Cmd {
	if h.src == nil {
		return nil
	}
	src, live := h.src, h.live
	return tea.Tick(hwInterval, func(time.Time) tea.Msg {
		if r, ok := live.Latest(); ok {
			return hwMsg{r.Stats, r.Err}
		}
		s, err := sampleSafely(src)
		return hwMsg{s, err}
	})
}

func sampleSafely(src gpu.Source) (s gpu.Stats, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = gpu.ErrNoNVML
		}
	}()
	return src.Sample()
}

// Init takes the first sample at once; the pane polls at 2 Hz from then
// on (poll). With no source it does nothing.
func (h *hardwarePane) Init() tea.Cmd {
	if h.src == nil {
		return nil
	}
	src := h.src
	return func() tea.Msg {
		s, err := sampleSafely(src)
		return hwMsg{s, err}
	}
}

// Update takes a telemetry sample and arms the next poll, follows the
// thermal decisions of the streaming reply's Meter, and shows the rank the
// controller chose between replies.
func (h *hardwarePane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case hwMsg:
		h.stats, h.err, h.have = msg.stats, msg.err, msg.err == nil
		h.observeThermal()
		return h.poll()
	case streamMsg:
		if msg.fresh {
			h.observeThermal()
		}
		if msg.done {
			h.end()
		}
	case thermalMsg:
		h.decide(msg.d)
	}
	return nil
}

// startMeter starts sampling for a reply that begins now, when there is a
// source to read or a thermal controller th to feed, and shows that
// sampler's readings until the reply ends; nil when there is neither.
func (h *hardwarePane) startMeter(th *gpu.ThermalRank) *gpu.Meter {
	if h.src == nil && th == nil {
		return nil
	}
	mt := gpu.StartMeter(h.src, th, 0)
	h.begin(mt)
	return mt
}

// begin hands the pane the sampler of a reply that starts now.
func (h *hardwarePane) begin(live *gpu.Meter) { h.live = live }

// observeThermal takes the thermal decision the live Meter's samples
// produced, if any.
func (h *hardwarePane) observeThermal() {
	if d, ok := h.live.Thermal(); ok {
		h.thermal, h.decided, h.pending = d, true, true
	}
}

// end is the reply's end: the pane polls the device again.
func (h *hardwarePane) end() {
	h.observeThermal()
	h.live, h.pending = nil, false
}

// decide shows the rank the thermal controller chose between replies.
func (h *hardwarePane) decide(d gpu.Decision) {
	h.thermal, h.decided, h.pending = d, true, false
}

// lines is the pane; rank is the rank the model runs at now.
func (h *hardwarePane) lines(rank int) []string {
	// The device on the first line; the further lines of Compute (why
	// the GPU was passed over, the rpc-servers and their memory) each on
	// its own, so a narrow pane cuts none into the next.
	dev, more, _ := strings.Cut(h.compute, "\n")
	l := []string{kv("compute", dev)}
	if more != "" {
		for _, why := range strings.Split(more, "\n") {
			l = append(l, theme.Dim.Render(why))
		}
	}
	switch {
	case !h.have && h.src != nil && h.err == nil:
		l = append(l, "reading GPU telemetry…")
	case !h.have:
		l = append(l, gpu.NoTelemetry)
		if h.src != nil && h.err != nil {
			l = append(l, theme.Error.Render(h.err.Error()))
		}
	default:
		l = append(l, h.stats.Lines()...)
	}
	if h.decided {
		// A rank decided while the reply decodes waits for its end:
		// switching the compression rebuilds the weights the decode is
		// reading and invalidates its KV cache (see thermalStep).
		when := ""
		if h.pending && h.thermal.Rank != rank {
			when = " next turn"
		}
		l = append(l, kv("thermal", fmt.Sprintf("rank %d%s", h.thermal.Rank, when)))
	}
	return l
}

func (h *hardwarePane) summary() string {
	if !h.have {
		return gpu.NoTelemetry
	}
	return h.stats.Summary()
}
