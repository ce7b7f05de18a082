package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/internal/cli/base"
)

// risingPower is a fake GPU whose draw rises by 25 W with every sample;
// it keeps what it reported.
type risingPower struct {
	mu   sync.Mutex
	seen []float64
}

func (r *risingPower) Sample() (gpu.Stats, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := 50 + 25*float64(len(r.seen)+1)
	r.seen = append(r.seen, p)
	return gpu.Stats{Name: "fake GPU", TempC: 50, PowerW: p}, nil
}

// TestBenchTokensPerJoule: with telemetry, bench --json reports the GPU's
// mean power over the decode (from samples on both sides of it, so between
// the lowest and highest draw seen) and decode tok/s over it as
// tokens_per_joule, and the human report says so too; without telemetry
// neither field is there at all.
func TestBenchTokensPerJoule(t *testing.T) {
	var mf base.ModelFlags
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mf.Register(fs)
	if err := fs.Parse([]string{"--demo", "--threads", "1"}); err != nil {
		t.Fatal(err)
	}
	mf.CtxDefault = 16 + 32
	f, tok, err := mf.OpenFile()
	if err != nil {
		t.Fatal(err)
	}
	m, st, err := mf.Load(f, tok)
	if err != nil {
		f.Close()
		t.Fatal(err)
	}
	defer m.Close()

	src := &risingPower{}
	stats, w, err := benchMetered(context.Background(), st, tok.BOS(), 16, 32, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := benchReport{DecodeTokS: stats.DecodeTokPerSec()}
	r.setPower(w)
	var out bytes.Buffer
	if err := r.write(&out, true, false); err != nil {
		t.Fatal(err)
	}
	var j map[string]any
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	power, ok1 := j["power_w"].(float64)
	tpj, ok2 := j["tokens_per_joule"].(float64)
	samples, _ := j["power_samples"].(float64)
	if !ok1 || !ok2 {
		t.Fatalf("power_w or tokens_per_joule missing with telemetry:\n%s", out.String())
	}
	src.mu.Lock()
	seen := append([]float64(nil), src.seen...)
	src.mu.Unlock()
	if len(seen) < 2 || samples < 2 || power < seen[0] || power > seen[len(seen)-1] {
		t.Errorf("power %g W from %g samples; the source read %v", power, samples, seen)
	}
	if dec := j["decode_tok_s"].(float64); math.Abs(tpj-dec/power) > 1e-9*tpj {
		t.Errorf("tokens_per_joule %g ≠ decode_tok_s %g / power_w %g", tpj, dec, power)
	}
	out.Reset()
	if err := r.write(&out, false, false); err != nil {
		t.Fatal(err)
	}
	if want := "energy       " + gpu.FormatTokensPerJoule(tpj); !strings.Contains(out.String(), want) {
		t.Errorf("human report lacks %q:\n%s", want, out.String())
	}

	stats, w, err = benchMetered(context.Background(), st, tok.BOS(), 16, 32, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	bare := benchReport{DecodeTokS: stats.DecodeTokPerSec()}
	bare.setPower(w)
	out.Reset()
	if err := bare.write(&out, true, false); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"power_w", "tokens_per_joule", "power_samples"} {
		if strings.Contains(out.String(), k) {
			t.Errorf("%s present without telemetry:\n%s", k, out.String())
		}
	}
	out.Reset()
	if err := bare.write(&out, false, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "tok/J") {
		t.Errorf("human report shows tok/J without telemetry:\n%s", out.String())
	}
}

// TestBenchJSONPowerMatchesMachine: the real command reports power only
// where NVML works.
func TestBenchJSONPowerMatchesMachine(t *testing.T) {
	out, errs, err := runCmd(t, "bench", "--demo", "-p", "8", "-n", "8", "--json", "--no-probe", "--threads", "1")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	n, nvmlErr := gpu.NewNVML()
	if nvmlErr == nil {
		n.Close()
	}
	_, has := j["tokens_per_joule"]
	if has != (nvmlErr == nil) {
		t.Errorf("tokens_per_joule present %v, NVML %v:\n%s", has, nvmlErr, out)
	}
}
