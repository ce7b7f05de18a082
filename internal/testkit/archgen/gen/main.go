// Command gen writes one set of archgen fixtures (and, with -ablations,
// its ablations) into a directory, with an index.json that lists each
// file, its sha256 and what it exercises: the input of
// scripts/llamacpp-ref/ref.mjs. The sets: archs2 (gemma3, phi3; the
// default) and moe (qwen3moe, mixtral, gpt-oss).
//
//	go run ./internal/testkit/archgen/gen -out DIR [-set archs2|moe] [-ablations]
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/isagi-lab/isagi/internal/testkit/archgen"
)

// indexEntry is one file of index.json.
type indexEntry struct {
	Name       string `json:"name"`
	File       string `json:"file"`
	SHA256     string `json:"sha256"`
	AblationOf string `json:"ablation_of,omitempty"`
	SameAs     string `json:"same_as,omitempty"`
	Info       info   `json:"info"`
}

// info is copied into the golden file's entry for the model.
type info struct {
	Weights string `json:"weights"`
	About   string `json:"about"`
}

func main() {
	out := flag.String("out", "", "directory to write the GGUF files and index.json into (created if missing)")
	set := flag.String("set", "archs2", "fixture set: archs2 or moe")
	ablations := flag.Bool("ablations", false, "also write the ablations")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 || (*set != "archs2" && *set != "moe") {
		fmt.Fprintln(os.Stderr, "usage: gen -out DIR [-set archs2|moe] [-ablations]")
		os.Exit(2)
	}
	if err := run(*out, *set, *ablations); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir, set string, withAblations bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	models, ablations := archgen.Fixtures(), archgen.Ablations()
	if set == "moe" {
		models, ablations = archgen.MoEFixtures(), archgen.MoEAblations()
	}
	if withAblations {
		models = append(models, ablations...)
	}
	var index struct {
		Generator string       `json:"generator"`
		Set       string       `json:"set,omitempty"`
		Models    []indexEntry `json:"models"`
	}
	index.Generator = "github.com/isagi-lab/isagi/internal/testkit/archgen"
	if set != "archs2" {
		index.Set = set // archs2's index.json stays as it was
	}
	for _, m := range models {
		path, err := archgen.Write(dir, m.Name)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading back %s: %w", path, err)
		}
		sum := sha256.Sum256(data)
		weights := "f32"
		if m.F16 {
			weights = "f16"
		}
		if m.MXFP4 {
			weights = "mxfp4 experts, " + weights
		}
		index.Models = append(index.Models, indexEntry{
			Name: m.Name, File: filepath.Base(path), SHA256: hex.EncodeToString(sum[:]),
			AblationOf: m.Base, SameAs: m.SameAs, Info: info{Weights: weights, About: m.About},
		})
	}
	js, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding index.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.json"), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing index.json: %w", err)
	}
	return nil
}
