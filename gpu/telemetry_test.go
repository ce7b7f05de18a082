package gpu

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// On machines without an NVIDIA driver (CI, our CPU boxes) NewNVML must
// fail cleanly. Set ISAGI_EXPECT_GPU=1 on a GPU machine to check the other way.
func TestNewNVML(t *testing.T) {
	n, err := NewNVML()
	if os.Getenv("ISAGI_EXPECT_GPU") == "1" {
		if err != nil {
			t.Fatalf("NewNVML on a GPU machine: %v", err)
		}
		defer n.Close()
		s, err := n.Sample()
		if err != nil {
			t.Fatalf("Sample: %v", err)
		}
		if s.Name == "" || s.MemTotal == 0 {
			t.Fatalf("implausible sample %+v", s)
		}
		t.Logf("%+v\n%s", s, strings.Join(s.Lines(), "\n"))
		return
	}
	if _, statErr := os.Stat("/dev/nvidiactl"); statErr == nil {
		t.Skip("this machine has an NVIDIA device; run with ISAGI_EXPECT_GPU=1")
	}
	if err == nil {
		n.Close()
		t.Fatal("NewNVML succeeded on a machine without an NVIDIA GPU")
	}
	if !errors.Is(err, ErrNoNVML) {
		t.Fatalf("error %v does not wrap ErrNoNVML", err)
	}
	if n != nil {
		t.Fatalf("NewNVML returned %v with its error", n)
	}
	// A nil *NVML (e.g. stored in an interface by mistake) must not crash.
	var nilN *NVML
	if _, err := nilN.Sample(); !errors.Is(err, ErrNoNVML) {
		t.Fatalf("nil Sample: %v", err)
	}
	if err := nilN.Close(); err != nil {
		t.Fatalf("nil Close: %v", err)
	}
}

type fakeSource struct{ s Stats }

func (f fakeSource) Sample() (Stats, error) { return f.s, nil }

func TestStatsLines(t *testing.T) {
	var src Source = fakeSource{Stats{
		Name: "NVIDIA H100 80GB HBM3", TempC: 41, PowerW: 71.4, PowerLimitW: 700,
		SMClockMHz: 1980, MemClockMHz: 2619, UtilPct: 12,
		MemUsed: 3 << 29, MemTotal: 80 << 30,
	}}
	s, err := src.Sample()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(s.Lines(), "\n")
	want := strings.Join([]string{
		"NVIDIA H100 80GB HBM3",
		"41 °C · util 12%",
		"power 71 / 700 W",
		"clocks SM 1980 · mem 2619 MHz",
		"vram 1.5 / 80.0 GiB",
	}, "\n")
	if got != want {
		t.Errorf("Lines:\n%s\nwant:\n%s", got, want)
	}
	if got, want := s.Summary(), "NVIDIA H100 80GB HBM3 41°C 71W 1.5/80.0 GiB"; got != want {
		t.Errorf("Summary %q, want %q", got, want)
	}
	s.PowerLimitW = 0
	s.Name = ""
	if l := s.Lines(); l[0] != "GPU" || l[2] != "power 71 W" {
		t.Errorf("without name/limit: %q", l)
	}
}
