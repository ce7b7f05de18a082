package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/remote"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/store"
)

// TestFirstStartMenu: the first-start menu asks again after an answer it
// does not know, and when the download fails it offers the demo model
// instead of giving up.
func TestFirstStartMenu(t *testing.T) {
	pulled := func() (string, error) { return "/models/smol.gguf", nil }
	offline := func() (string, error) { return "", errors.New("dial tcp: lookup huggingface.co: no such host") }
	for _, tc := range []struct {
		name, input string
		pull        func() (string, error)
		path        string
		demo        bool
		err         bool
		says        []string
	}{
		{"invalid then demo", "3\n2\n", pulled, "", true, false, []string{`"3" is not one of the choices`}},
		{"invalid then pull", "pull\n1\n", pulled, "/models/smol.gguf", false, false, nil},
		{"pull fails, demo accepted", "1\n\n", offline, "", true, false, []string{"no such host", "demo model instead? [Y/n]"}},
		{"pull fails, demo accepted with y", "1\nmaybe\ny\n", offline, "", true, false, []string{`"maybe"`}},
		{"pull fails, demo declined", "1\nn\n", offline, "", false, true, nil},
		{"quit", "q\n", pulled, "", false, true, nil},
		{"input ends", "5\n", pulled, "", false, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			path, demo, err := firstStartMenu(strings.NewReader(tc.input), &out, tc.pull, nil)
			if path != tc.path || demo != tc.demo || (err != nil) != tc.err {
				t.Fatalf("got (%q, %v, %v), want (%q, %v, error %v)\n%s", path, demo, err, tc.path, tc.demo, tc.err, out.String())
			}
			for _, s := range tc.says {
				if !strings.Contains(out.String(), s) {
					t.Errorf("the menu did not say %q:\n%s", s, out.String())
				}
			}
		})
	}
}

// TestFirstStartOffersInstalledModels: with models installed but none the
// default, the menu does not say none is installed: it lists them first,
// and choosing one opens it.
func TestFirstStartOffersInstalledModels(t *testing.T) {
	installed := []store.Model{{Name: "kjv-q8_0", Path: "/m/kjv-q8_0.gguf", Arch: "llama", Quant: "Q8_0"}, {Name: "qwen", Path: "/m/qwen.gguf", Arch: "qwen2", Quant: "Q4_K_M"}}
	pulled := func() (string, error) { return "/models/smol.gguf", nil }
	for _, c := range []struct {
		input, path string
		demo        bool
	}{{"2\n", "/m/qwen.gguf", false}, {"3\n", "/models/smol.gguf", false}, {"4\n", "", true}, {"9\n1\n", "/m/kjv-q8_0.gguf", false}} {
		var out bytes.Buffer
		path, demo, err := firstStartMenu(strings.NewReader(c.input), &out, pulled, installed)
		if err != nil || path != c.path || demo != c.demo {
			t.Errorf("%q: got (%q, %v, %v), want (%q, %v)\n%s", c.input, path, demo, err, c.path, c.demo, out.String())
		}
		if strings.Contains(out.String(), "No model is installed") || !strings.Contains(out.String(), "2 installed models, none of them the default") || !strings.Contains(out.String(), "2  qwen (qwen2 Q4_K_M)") {
			t.Errorf("menu:\n%s", out.String())
		}
	}
}

// TestRPCServersShown: the Hardware pane's label shows each server with
// its layers and memory (bench's report: the bench package's
// TestRPCReport).
func TestRPCServersShown(t *testing.T) {
	servers := []remote.ServerInfo{
		{Addr: "127.0.0.1:50052", Free: 47 << 29, Total: 47 << 29, FirstLayer: 0, LayersCount: 15},
		{Addr: "10.0.0.2:50052", Free: 11 << 30, Total: 12 << 30, FirstLayer: 15, LayersCount: 15},
		{Addr: "10.0.0.3:50052", Free: 1 << 20, Total: 2 << 20, FirstLayer: -1},
	}
	lines := base.ServerLines(servers, 30)
	want := []string{
		"127.0.0.1:50052 · layers 0–14 · 23.50 GiB free of 23.50 GiB",
		"10.0.0.2:50052 · layers 15–29 · 11.00 GiB free of 12.00 GiB",
		"10.0.0.3:50052 · no layers · 1.00 MiB free of 2.00 MiB",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("serverLines = %q, want %q", lines, want)
	}
	if got := base.ServerLines([]remote.ServerInfo{{Addr: "a:1", FirstLayer: -1}}, 0); got[0] != "a:1" {
		t.Errorf("without a layer count or memory: %q", got[0])
	}
	label := computeLabel(session.Info{Backend: "rpc × 3 (…)"}, strings.Join(lines[:2], "\n"))
	if label != "rpc × 3 (…)\n"+want[0]+"\n"+want[1] {
		t.Errorf("computeLabel = %q", label)
	}

}

func TestComputeLabel(t *testing.T) {
	for _, c := range []struct {
		i    session.Info
		note string
		want string
	}{
		{session.Info{Backend: "CUDA · NVIDIA H100", Kernels: "avx2", Threads: 4}, "", "CUDA · NVIDIA H100"},
		{session.Info{Kernels: "avx2", Threads: 2}, "", "cpu avx2 × 2 threads"},
		{session.Info{Kernels: "go"}, "", "cpu go"},
		{session.Info{Backend: "cpu avx2 × 2 threads"}, "CPU: no CUDA GPU found", "cpu avx2 × 2 threads\nno CUDA GPU found"},
	} {
		if got := computeLabel(c.i, c.note); got != c.want {
			t.Errorf("computeLabel(%+v) = %q, want %q", c.i, got, c.want)
		}
	}
}

// TestFirstStartMentionsChatDemo: the first-start menu, and the message
// that stands in for it without a terminal, name the chat demo beside the
// KJV one.
func TestFirstStartMentionsChatDemo(t *testing.T) {
	var out bytes.Buffer
	if _, _, err := firstStartMenu(strings.NewReader("q\n"), &out, nil, nil); !errors.Is(err, errQuit) {
		t.Fatalf("q: %v", err)
	}
	if !strings.Contains(out.String(), "isagi --demo=chat") {
		t.Errorf("the menu does not mention the chat demo:\n%s", out.String())
	}
	_, _, err := firstStart(base.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out}, store.Paths{})
	if err == nil || !strings.Contains(err.Error(), "isagi --demo=chat") {
		t.Errorf("without a terminal: %v", err)
	}
}
