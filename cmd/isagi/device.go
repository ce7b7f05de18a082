package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/gpu/cuda"
	"github.com/isagi-lab/isagi/gpu/cuda/cu"
)

// deviceFlags choose what runs the model: the GPU when one is usable, else
// the CPU (the default), or one of them by --gpu or --cpu.
type deviceFlags struct {
	gpu, cpu bool

	once sync.Once
	// dev is the opened GPU, or nil; note says in one line why the CPU
	// runs the model when the GPU was not asked for by name.
	dev  *cuda.Device
	err  error
	note string
}

const (
	gpuHelp = "run the model on the CUDA GPU, and fail if there is none (default: the GPU when one is usable, else the CPU)"
	cpuHelp = "run the model on the CPU even when a GPU is present"
)

func (d *deviceFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&d.gpu, "gpu", false, gpuHelp)
	fs.BoolVar(&d.cpu, "cpu", false, cpuHelp)
}

// resolve opens the GPU when the flags let it, once per command. It returns
// the backend constructor for session.Options.Backend (nil: the CPU), and an
// error only when --gpu was given and no GPU can be used, or both flags.
func (d *deviceFlags) resolve() (func(threads int) (backend.Backend, error), error) {
	if d.gpu && d.cpu {
		return nil, errors.New("--gpu and --cpu: choose one")
	}
	if d.cpu {
		return nil, nil
	}
	d.once.Do(func() { d.dev, d.err = cuda.Open(cuda.Options{}) })
	if d.err != nil {
		if d.gpu {
			return nil, fmt.Errorf("--gpu: %w", d.err)
		}
		d.note = "CPU: " + gpuAbsence(d.err)
		return nil, nil
	}
	dev := d.dev
	return func(int) (backend.Backend, error) { return dev.NewBackend() }, nil
}

// gpuAbsence says in a few words why no GPU runs the model.
func gpuAbsence(err error) string {
	var r cu.Result
	switch {
	case errors.As(err, &r) && r == cu.ErrNoDevice:
		return "no CUDA GPU found"
	case strings.Contains(err.Error(), "no CUDA driver"):
		return "no CUDA driver (libcuda.so.1)"
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, cuda.ErrUnavailable.Error()+": ")
	return "GPU not usable: " + msg
}
