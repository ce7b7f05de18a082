// Package peer finds, for tests, the programs of other projects that some
// tests run beside isagi: ggml's rpc-server. The repository builds none of
// them and tracks none: a developer builds them by hand, outside the
// repository, and points the tests at them. A test whose program is absent
// skips with one line that says how to provide it.
package peer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RPCServerEnv names the environment variable that points the tests at an
// rpc-server binary.
const RPCServerEnv = "ISAGI_RPC_SERVER"

// RPCServer7Env names the environment variable that points the tests at
// an rpc-server of protocol 7.0.1 (current llama.cpp's), for the tests
// that run both versions; there is no PATH fallback, since a PATH's
// rpc-server is of one version.
const RPCServer7Env = "ISAGI_RPC_SERVER_7"

// SkipsEnv names a file to which each skip of this package appends one
// line; `make test` sets it and prints the lines after the run, since go
// test shows a passing package's skips only under -v.
const SkipsEnv = "ISAGI_TEST_SKIPS"

// rpcHelp is how to provide a server, said in every skip.
const rpcHelp = "build ggml's rpc-server (protocol 5.1.0, ggml d99724f2) by hand outside the repository and set " +
	RPCServerEnv + " to it, or put it on PATH (docs/remote.md)"

// FindRPCServer returns the rpc-server the tests run: $ISAGI_RPC_SERVER,
// else rpc-server on PATH. It returns ("", nil) when there is none, and an
// error when ISAGI_RPC_SERVER names something that cannot be run: a path
// someone set on purpose is a mistake to report, not a reason to skip.
func FindRPCServer(getenv func(string) string, lookPath func(string) (string, error)) (string, error) {
	if p := getenv(RPCServerEnv); p != "" {
		info, err := os.Stat(p)
		switch {
		case err != nil:
			return "", fmt.Errorf("%s=%s: %w", RPCServerEnv, p, err)
		case info.IsDir() || info.Mode()&0o111 == 0:
			return "", fmt.Errorf("%s=%s is not an executable file", RPCServerEnv, p)
		}
		return p, nil
	}
	p, err := lookPath("rpc-server")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", fmt.Errorf("looking for rpc-server on PATH: %w", err)
	}
	return p, nil
}

// RPCServer returns the path of the rpc-server for t, and skips t with one
// line saying how to provide one when there is none.
func RPCServer(t testing.TB) string {
	t.Helper()
	p, err := FindRPCServer(os.Getenv, exec.LookPath)
	if err != nil {
		t.Fatal(err)
	}
	if p == "" {
		Skip(t, "no rpc-server: "+rpcHelp)
	}
	return p
}

// RPCServer7 returns the path of the 7.0.1 rpc-server ($ISAGI_RPC_SERVER_7)
// for t, and skips t with one line saying how to provide one when it is
// not set.
func RPCServer7(t testing.TB) string {
	t.Helper()
	p := os.Getenv(RPCServer7Env)
	if p == "" {
		Skip(t, "no 7.0.1 rpc-server: build llama.cpp's rpc-server (protocol 7.0.1) by hand outside the repository and set "+RPCServer7Env+" to it (docs/remote.md)")
	}
	if info, err := os.Stat(p); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		t.Fatalf("%s=%s is not an executable file", RPCServer7Env, p)
	}
	return p
}

// Skip skips t with why, and appends one line naming the test to the file
// that $ISAGI_TEST_SKIPS names, if it names one.
func Skip(t testing.TB, why string) {
	t.Helper()
	if f := os.Getenv(SkipsEnv); f != "" {
		line := fmt.Sprintf("skipped %s %s: %s\n", packageDir(), t.Name(), why)
		// One short O_APPEND write per skip: packages run as separate
		// processes, and such writes do not interleave.
		if w, err := os.OpenFile(f, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			w.WriteString(line)
			w.Close()
		}
	}
	t.Skip(why)
}

// packageDir is the test's package folder relative to the module's root
// (go test runs a test binary in its package's folder), or the folder's
// name when no go.mod is found above it.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if rel, err := filepath.Rel(d, wd); err == nil {
				return filepath.ToSlash(rel)
			}
			break
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return filepath.Base(wd)
}
