package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/hub"
	"github.com/isagi-lab/isagi/store"
)

func cmdModels(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON: {\"dir\", \"default\", \"models\": [{name, file, path, size, arch, quant, params, incomplete, error}]}")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprint(w, `Usage: isagi models [--json]

Lists the models installed in $XDG_DATA_HOME/isagi/models (by default
~/.local/share/isagi/models): name, size, architecture, quantisation and
parameter count, read from each GGUF header. Partial downloads are listed as
incomplete; running the same "isagi pull" again resumes them. NAME is what
--model accepts. The default model is the config file's "model"
($XDG_CONFIG_HOME/isagi/config.json).

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprint(w, `
Examples:
  isagi models
  isagi models --json | jq -r '.models[].path'
`)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return argsError(fs, "models takes no arguments, got %q", fs.Args())
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

	if *asJSON {
		if ms == nil {
			ms = []store.Model{}
		}
		out := struct {
			Dir     string        `json:"dir"`
			Default string        `json:"default,omitempty"`
			Models  []store.Model `json:"models"`
		}{dir, cfg.Model, ms}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}

	if len(ms) == 0 {
		fmt.Fprintf(stdout, "No models installed in %s.\n\nGet a small one:  isagi pull %s\nOr try the bundled demo model:  isagi --demo\n", dir, hub.DefaultShortName)
		return cfgErr
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tSIZE\tARCH\tQUANT\tPARAMS\t")
	for _, m := range ms {
		switch {
		case m.Incomplete:
			fmt.Fprintf(w, "%s\t%s\t(incomplete download: pull it again to resume)\t\t\t\n", m.Name, store.HumanBytes(m.Size))
		case m.Err != "":
			fmt.Fprintf(w, "%s\t%s\t(unreadable: %s)\t\t\t\n", m.Name, store.HumanBytes(m.Size), m.Err)
		default:
			params := ""
			if m.Params > 0 {
				params = store.HumanParams(m.Params)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t\n", m.Name, store.HumanBytes(m.Size), m.Arch, m.Quant, params)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nmodels dir: %s\n", dir)
	if cfg.Model != "" {
		fmt.Fprintf(stdout, "default:    %s\n", cfg.Model)
	}
	return cfgErr
}
