//go:build linux && cgo

package gpu

import (
	"fmt"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// NVML is a Source reading the first NVIDIA GPU through NVML. Close it when
// done. A nil *NVML is safe to call and reports ErrNoNVML.
type NVML struct {
	mu     sync.Mutex
	dev    nvml.Device
	count  int
	closed bool
}

// NewNVML initialises NVML and opens GPU 0. Without the NVIDIA driver (no
// libnvidia-ml.so.1, as on CPU-only machines and in CI) or without a device
// it returns an error wrapping ErrNoNVML; it never panics.
func NewNVML() (n *NVML, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("%w: %v", ErrNoNVML, r)
		}
	}()
	if ret := nvml.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("%w: init: %v", ErrNoNVML, ret)
	}
	count, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS || count < 1 {
		nvml.Shutdown()
		return nil, fmt.Errorf("%w: no device (%v)", ErrNoNVML, ret)
	}
	dev, ret := nvml.DeviceGetHandleByIndex(0)
	if ret != nvml.SUCCESS {
		nvml.Shutdown()
		return nil, fmt.Errorf("%w: device 0: %v", ErrNoNVML, ret)
	}
	return &NVML{dev: dev, count: count}, nil
}

// Sample reads the device's current state. Facts the device does not
// support are left zero; only a failure to read the name is an error.
func (n *NVML) Sample() (s Stats, err error) {
	if n == nil {
		return Stats{}, ErrNoNVML
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return Stats{}, fmt.Errorf("%w: closed", ErrNoNVML)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrNoNVML, r)
		}
	}()
	name, ret := n.dev.GetName()
	if ret != nvml.SUCCESS {
		return Stats{}, fmt.Errorf("gpu: name: %v", ret)
	}
	if n.count > 1 {
		name = fmt.Sprintf("%s (+%d)", name, n.count-1)
	}
	s.Name = name
	if t, ret := n.dev.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
		s.TempC = float64(t)
	}
	if p, ret := n.dev.GetPowerUsage(); ret == nvml.SUCCESS {
		s.PowerW = float64(p) / 1000
	}
	if p, ret := n.dev.GetEnforcedPowerLimit(); ret == nvml.SUCCESS {
		s.PowerLimitW = float64(p) / 1000
	}
	if c, ret := n.dev.GetClockInfo(nvml.CLOCK_SM); ret == nvml.SUCCESS {
		s.SMClockMHz = int(c)
	}
	if c, ret := n.dev.GetClockInfo(nvml.CLOCK_MEM); ret == nvml.SUCCESS {
		s.MemClockMHz = int(c)
	}
	if u, ret := n.dev.GetUtilizationRates(); ret == nvml.SUCCESS {
		s.UtilPct = int(u.Gpu)
	}
	if m, ret := n.dev.GetMemoryInfo(); ret == nvml.SUCCESS {
		s.MemUsed, s.MemTotal = m.Used, m.Total
	}
	return s, nil
}

// Close shuts NVML down. Later Samples fail.
func (n *NVML) Close() error {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	if ret := nvml.Shutdown(); ret != nvml.SUCCESS {
		return fmt.Errorf("gpu: NVML shutdown: %v", ret)
	}
	return nil
}
