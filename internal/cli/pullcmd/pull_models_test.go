package pullcmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/internal/cli/models"
	"github.com/isagi-lab/isagi/store"
)

// fakeHubServer serves org/repo with one file over the Hub's endpoints.
func fakeHubServer(t *testing.T, name string, data []byte) string {
	t.Helper()
	return countingHubServer(t, name, data, nil)
}

// countingHubServer is fakeHubServer counting the requests for the file's
// bytes in downloads, when it is not nil.
func countingHubServer(t *testing.T, name string, data []byte, downloads *atomic.Int32) string {
	t.Helper()
	sum := sha256.Sum256(data)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/models/org/repo", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"siblings": []map[string]string{{"rfilename": name}}})
	})
	mux.HandleFunc("POST /api/models/org/repo/paths-info/main", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode([]map[string]any{{
			"type": "file", "path": name, "size": len(data), "oid": "x",
			"lfs": map[string]any{"oid": hex.EncodeToString(sum[:]), "size": len(data)},
		}})
	})
	mux.HandleFunc("GET /org/repo/resolve/main/"+name, func(w http.ResponseWriter, r *http.Request) {
		if downloads != nil {
			downloads.Add(1)
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestPullThenModels(t *testing.T) {
	clitest.IsolateStore(t)
	data := clitest.TinyModel(t)
	t.Setenv("HF_ENDPOINT", fakeHubServer(t, "tiny-Q8_0.gguf", data))

	var out, errb bytes.Buffer
	if err := Main(clitest.Env(&out, &errb), []string{"--default", "hf.co/org/repo"}); err != nil {
		t.Fatalf("pull: %v\n%s", err, errb.String())
	}
	dir := clitest.DefaultPaths(t).Models
	path := filepath.Join(dir, "tiny-Q8_0.gguf")
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("pulled file: %v", err)
	}
	for _, want := range []string{"saved " + path, "sha256 verified", "isagi --model tiny-Q8_0", "default model is now tiny-Q8_0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("pull stdout lacks %q:\n%s", want, out.String())
		}
	}
	// stderr is not a terminal here: plain progress lines, ending complete.
	if !strings.Contains(errb.String(), "tiny-Q8_0.gguf: ") || !strings.Contains(errb.String(), "(100%)") || strings.Contains(errb.String(), "\r") {
		t.Errorf("plain progress expected on a non-terminal:\n%q", errb.String())
	}
	if p, err := clitest.DefaultPaths(t).Resolve(""); err != nil || p != path {
		t.Fatalf("after pull --default, Resolve = %q, %v", p, err)
	}

	out.Reset()
	if err := models.Main(clitest.Env(&out, &errb), nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NAME", "PARAMS", "tiny-Q8_0", "llama", "Q8_0", "models dir: " + dir, "default:    tiny-Q8_0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("models output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := models.Main(clitest.Env(&out, &errb), []string{"--json"}); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Dir    string
		Models []store.Model
	}
	if err := json.Unmarshal(out.Bytes(), &j); err != nil || j.Dir != dir || len(j.Models) != 1 || j.Models[0].Arch != "llama" || j.Models[0].Params != 256 {
		t.Fatalf("models --json: %v %+v\n%s", err, j, out.String())
	}
}

// TestPullVerifiesInstalled: pulling an installed model hashes it: intact,
// it is reported installed and verified and not downloaded; with a flipped
// byte (same size) it is reported as not matching and downloaded again.
func TestPullVerifiesInstalled(t *testing.T) {
	clitest.IsolateStore(t)
	data := clitest.TinyModel(t)
	var downloads atomic.Int32
	t.Setenv("HF_ENDPOINT", countingHubServer(t, "tiny-Q8_0.gguf", data, &downloads))
	pull := func() (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		if err := Main(clitest.Env(&out, &errb), []string{"hf.co/org/repo"}); err != nil {
			t.Fatalf("pull: %v\n%s", err, errb.String())
		}
		return out.String(), errb.String()
	}
	pull()
	dir := clitest.DefaultPaths(t).Models
	path := filepath.Join(dir, "tiny-Q8_0.gguf")

	out, errs := pull()
	if want := "tiny-Q8_0.gguf is already installed and verified (its sha256 matches the Hub's): " + path; !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	if !strings.Contains(errs, "tiny-Q8_0.gguf: checking ") {
		t.Errorf("no progress line for the check:\n%s", errs)
	}
	if n := downloads.Load(); n != 1 {
		t.Fatalf("%d downloads, want 1: the intact file was fetched again", n)
	}

	bad := append([]byte(nil), data...)
	bad[len(bad)-1] ^= 1
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs = pull()
	badSum, goodSum := sha256.Sum256(bad), sha256.Sum256(data)
	want := "the installed " + path + " did not match the Hub's copy (its sha256 is " + hex.EncodeToString(badSum[:]) +
		", the Hub lists " + hex.EncodeToString(goodSum[:]) + "), so it was downloaded again\nsaved " + path
	if !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	if !strings.Contains(errs, "tiny-Q8_0.gguf: the installed file does not match the Hub's copy; downloading it again\n") {
		t.Errorf("stderr does not say the download follows a failed check:\n%s", errs)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the damaged file was not replaced (%v)", err)
	}
	if n := downloads.Load(); n != 2 {
		t.Fatalf("%d downloads, want 2", n)
	}
}

func TestPullOffline(t *testing.T) {
	clitest.IsolateStore(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HF_ENDPOINT", "http://"+ln.Addr().String())
	ln.Close()
	var out, errb bytes.Buffer
	err = Main(clitest.Env(&out, &errb), []string{"smollm2-135m-instruct"})
	if err == nil || !strings.Contains(err.Error(), "offline") || !strings.Contains(err.Error(), "--model /path/to/model.gguf") {
		t.Fatalf("want the offline sentence, got %v", err)
	}
}

func TestPullAndModelsHelp(t *testing.T) {
	clitest.IsolateStore(t)
	for _, tc := range []struct {
		cmd  func([]string, *bytes.Buffer, *bytes.Buffer) error
		want []string
	}{
		{func(a []string, o, e *bytes.Buffer) error { return Main(clitest.Env(o, e), a) }, []string{"Examples:", "isagi pull smollm2-135m-instruct", "qwen2.5-0.5b-instruct", "llama-3.2-1b-instruct", "hf.co/"}},
		{func(a []string, o, e *bytes.Buffer) error { return models.Main(clitest.Env(o, e), a) }, []string{"Examples:", "isagi models --json"}},
	} {
		var out, errb bytes.Buffer
		if err := tc.cmd([]string{"--help"}, &out, &errb); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("--help: %v", err)
		}
		for _, w := range tc.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("help lacks %q:\n%s", w, errb.String())
			}
		}
	}
	var out, errb bytes.Buffer
	if err := models.Main(clitest.Env(&out, &errb), nil); err != nil || !strings.Contains(out.String(), "isagi pull smollm2-135m-instruct") || !strings.Contains(out.String(), "--demo") {
		t.Fatalf("empty models: %v\n%s", err, out.String())
	}
	if err := Main(clitest.Env(&out, &errb), []string{"not a model"}); err == nil {
		t.Fatal("bad name accepted")
	}
}
