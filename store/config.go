package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/isagi-lab/isagi/engine/regfile"
)

// Config is the user's config file, Paths.Config.
//
// Keys this version does not know are kept in Extra and written back by
// SaveConfig, so an older isagi never drops settings a newer one wrote.
type Config struct {
	// Model is the default model: a path to a GGUF file or the name of an
	// installed model (see Resolve).
	Model string `json:"model,omitempty"`

	// Extra holds every other top-level key, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// MarshalJSON writes Model and the Extra keys as one object.
func (c Config) MarshalJSON() ([]byte, error) {
	m := make(map[string]json.RawMessage, len(c.Extra)+1)
	for k, v := range c.Extra {
		m[k] = v
	}
	delete(m, "model")
	if c.Model != "" {
		b, err := json.Marshal(c.Model)
		if err != nil {
			return nil, err
		}
		m["model"] = b
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads Model and keeps the other keys in Extra.
func (c *Config) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*c = Config{}
	if raw, ok := m["model"]; ok {
		if err := json.Unmarshal(raw, &c.Model); err != nil {
			return fmt.Errorf(`"model" must be a string: %w`, err)
		}
		delete(m, "model")
	}
	if len(m) > 0 {
		c.Extra = m
	}
	return nil
}

// LoadConfig reads the config file, p.Config. A missing file is an empty
// Config, not an error; a malformed one is an error naming the file.
func (p Paths) LoadConfig() (Config, error) {
	path, err := p.configPath()
	if err != nil {
		return Config{}, err
	}
	return loadConfig(path)
}

// maxConfigBytes bounds the config file: a few lines of JSON, so anything
// near a MiB is not one, and reading it whole would waste memory.
const maxConfigBytes = 1 << 20

func loadConfig(p string) (Config, error) {
	// Not os.ReadFile: a config path that is a FIFO or a device (a
	// symbolic link to /dev/zero, say) must be refused, not read forever.
	b, err := regfile.ReadRegular(p, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("config file: %w", err) // err names the path
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("config file %s: %w", p, err)
	}
	return c, nil
}

// SaveConfig writes c to the config file, p.Config, atomically
// (temporary file, fsync, rename), creating the directory if needed.
func (p Paths) SaveConfig(c Config) error {
	path, err := p.configPath()
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	if err := WriteFileAtomic(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	return nil
}
