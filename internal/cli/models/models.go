// Package models is `isagi models`: the installed models.
package models

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/hub"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/store"
)

// Main is `isagi models`: the installed models.
func Main(env base.Env, args []string) error {
	fs := env.FlagSet("models", usageHead, usageTail)
	asJSON := fs.Bool("json", false, "print JSON: {\"dir\", \"default\", \"runs_types\", \"models\": [{name, file, path, size, arch, quant, params, incomplete, error, types: [{type, tensors, bytes}], cannot_run}]}")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return base.ArgsError(fs, "models takes no arguments, got %q", fs.Args())
	}
	paths, err := store.DefaultPaths()
	dir := paths.Models
	if dir == "" {
		return err
	}
	ms, err := paths.List()
	if err != nil {
		return err
	}
	cfg, cfgErr := paths.LoadConfig()
	listed := make([]listedModel, len(ms))
	anyCannot, anyArch := false, false
	for i, m := range ms {
		listed[i] = withTypes(m)
		anyCannot = anyCannot || len(listed[i].CannotRun) > 0
		anyArch = anyArch || (m.Arch != "" && !model.SupportsArchitecture(m.Arch))
	}

	if *asJSON {
		out := struct {
			Dir     string        `json:"dir"`
			Default string        `json:"default,omitempty"`
			Runs    []string      `json:"runs_types"`
			Models  []listedModel `json:"models"`
		}{dir, cfg.Model, typeNames(tensor.ComputableTypes()), listed}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}

	if len(ms) == 0 {
		fmt.Fprintf(env.Stdout, "No models installed in %s.\n\nGet a small one:  isagi pull %s\nOr try the bundled demo model:  isagi --demo\n", dir, hub.DefaultShortName)
		return cfgErr
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tSIZE\tARCH\tQUANT\tPARAMS\tTYPES\t")
	// A note goes in the last column, and a read error (any length) below
	// the table: in the ARCH column either would widen it for every row.
	var unreadable []string
	for _, m := range listed {
		switch {
		case m.Incomplete:
			fmt.Fprintf(w, "%s\t%s\t\t\t\t(incomplete download: pull it again to resume)\t\n", m.Name, store.HumanBytes(m.Size))
		case m.Err != "":
			fmt.Fprintf(w, "%s\t%s\t\t\t\t(unreadable: see below)\t\n", m.Name, store.HumanBytes(m.Size))
			unreadable = append(unreadable, fmt.Sprintf("%s is unreadable: %s", m.File, m.Err))
		default:
			params := ""
			if m.Params > 0 {
				params = store.HumanParams(m.Params)
			}
			types := base.TypeSummary(m.types)
			if len(m.CannotRun) > 0 {
				types += "  ← cannot run " + strings.Join(m.CannotRun, ", ")
			}
			if m.Arch != "" && !model.SupportsArchitecture(m.Arch) {
				types += "  ← cannot run architecture " + m.Arch
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t\n", m.Name, store.HumanBytes(m.Size), m.Arch, m.Quant, params, types)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(unreadable) > 0 {
		fmt.Fprintf(env.Stdout, "\n%s\n", strings.Join(unreadable, "\n"))
	}
	if anyCannot {
		fmt.Fprintf(env.Stdout, "\nthis build runs %s; a model marked \"cannot run\" needs another quantisation.\n", tensor.ComputableNames())
	}
	if anyArch {
		fmt.Fprintf(env.Stdout, "\nthis build runs the architectures %s.\n", strings.Join(model.Architectures(), ", "))
	}
	fmt.Fprintf(env.Stdout, "\nmodels dir: %s\n", dir)
	if cfg.Model != "" {
		fmt.Fprintf(env.Stdout, "default:    %s\n", cfg.Model)
	}
	return cfgErr
}

// listedModel is a store.Model with its tensor types, for "isagi models".
type listedModel struct {
	store.Model
	// Types counts the tensors of each type, most bytes first.
	Types []jsonTypeCount `json:"types,omitempty"`
	// CannotRun names the types among Types this build has no kernel for.
	CannotRun []string `json:"cannot_run,omitempty"`
	types     []base.TypeCount
}

// jsonTypeCount is base.TypeCount with the type by name.
type jsonTypeCount struct {
	Type    string `json:"type"`
	Tensors int    `json:"tensors"`
	Bytes   uint64 `json:"bytes"`
}

// withTypes reads m's header again for its tensor types (store.Model does
// not carry them). An incomplete or unreadable file is left as the store
// listed it; one that became unreadable since is listed with that error.
func withTypes(m store.Model) listedModel {
	l := listedModel{Model: m}
	if m.Incomplete || m.Err != "" {
		return l
	}
	f, err := gguf.Open(m.Path)
	if err != nil {
		l.Err = err.Error()
		return l
	}
	defer f.Close()
	l.types = base.CountTypes(f)
	for _, c := range l.types {
		l.Types = append(l.Types, jsonTypeCount{c.Type.String(), c.Tensors, c.Bytes})
	}
	for _, c := range base.Uncomputable(l.types) {
		l.CannotRun = append(l.CannotRun, c.Type.String())
	}
	return l
}

// typeNames is the ggml names of ts.
func typeNames(ts []tensor.Type) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

// usageHead and usageTail frame the flags in `isagi models --help`.
const (
	usageHead = `Usage: isagi models [--json]

Lists the models installed in $XDG_DATA_HOME/isagi/models (by default
~/.local/share/isagi/models): name, size, architecture, quantisation,
parameter count and every tensor type with its count, read from each GGUF
header; a model holding a type this build has no kernel for is marked
"cannot run" with those types. Partial downloads are listed as
incomplete; running the same "isagi pull" again resumes them. NAME is what
--model accepts. The default model is the config file's "model"
($XDG_CONFIG_HOME/isagi/config.json).

Flags:
`
	usageTail = `
Examples:
  isagi models
  isagi models --json | jq -r '.models[].path'
`
)
