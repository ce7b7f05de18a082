package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Paths is where ISAGI keeps its files: the one description of the data
// and config layout, which every command takes its directories from.
//
//	Data      $XDG_DATA_HOME/isagi (default ~/.local/share/isagi)
//	Models    Data/models      installed GGUF models
//	Sessions  Data/sessions    sessions the TUI saves without a name
//	GRCCache  Data/geometry    built GRC compressions (session.GRCCache)
//	Profiles  Data/profiles    geometry profiles, one per model sha256
//	Config    $XDG_CONFIG_HOME/isagi/config.json (default ~/.config/isagi/config.json)
//
// A path left empty is one whose base directory could not be found (see
// DefaultPaths); the methods that need it return an error saying so.
type Paths struct {
	Data     string
	Models   string
	Sessions string
	GRCCache string
	Profiles string
	// Steer holds steering vectors by name (NAME.gguf, llama.cpp's
	// control-vector format): what /steer NAME and isagi.steer find.
	Steer  string
	Config string
}

// NewPaths is the layout under the given application directories: data
// (the …/isagi data directory) and config (the …/isagi config
// directory). An empty one leaves the paths under it empty.
func NewPaths(data, config string) Paths {
	var p Paths
	if data != "" {
		p.Data = data
		p.Models = filepath.Join(data, "models")
		p.Sessions = filepath.Join(data, "sessions")
		p.GRCCache = filepath.Join(data, "geometry")
		p.Profiles = filepath.Join(data, "profiles")
		p.Steer = filepath.Join(data, "steer")
	}
	if config != "" {
		p.Config = filepath.Join(config, "config.json")
	}
	return p
}

// DefaultPaths is the layout under the XDG base directories as the
// environment gives them now: $XDG_DATA_HOME and $XDG_CONFIG_HOME, or
// ~/.local/share and ~/.config when a variable is unset or not absolute (as
// the XDG spec asks).
//
// When a base directory cannot be found (its variable unusable and the
// home directory unknown) the error says so, and the paths under that base
// are left empty while those under the other are still filled in: a
// command that needs only the data directory is not stopped by an unknown
// config directory, and one that only uses optional directories (the GRC
// cache, profiles) can go on without them.
func DefaultPaths() (Paths, error) {
	data, derr := xdgDir(envData, ".local/share")
	config, cerr := xdgDir(envConfig, ".config")
	return NewPaths(data, config), errors.Join(derr, cerr)
}

// The XDG base-directory variables, named in errors.
const (
	envData   = "XDG_DATA_HOME"
	envConfig = "XDG_CONFIG_HOME"
)

func xdgDir(env, fallback string) (string, error) {
	if d := os.Getenv(env); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, App), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", noDir(env)
	}
	return filepath.Join(home, filepath.FromSlash(fallback), App), nil
}

// noDir is the error for a base directory that cannot be found.
func noDir(env string) error {
	return fmt.Errorf("cannot find the %s directory: $%s is unset and the home directory is unknown", App, env)
}

// modelsDir is p.Models, or why there is none.
func (p Paths) modelsDir() (string, error) {
	if p.Models == "" {
		return "", noDir(envData)
	}
	return p.Models, nil
}

// configPath is p.Config, or why there is none.
func (p Paths) configPath() (string, error) {
	if p.Config == "" {
		return "", noDir(envConfig)
	}
	return p.Config, nil
}
