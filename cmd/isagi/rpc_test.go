package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend/remote"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/internal/testkit/peer"
)

// TestRPCFlag: every command that runs a model takes --rpc and lists it in
// its help, and a malformed list, or --rpc with --gpu or --cpu, is one
// sentence naming the value at fault, exit 2 — before anything is dialled.
func TestRPCFlag(t *testing.T) {
	commands := [][]string{{"--demo"}, {"run", "--demo", "--prompt", "x", "-n", "1"}, {"bench", "--demo"}, {"ppl", "--demo"},
		{"serve", "--demo"}, {"calibrate", "--demo"}, {"eval", "teh", "--demo"}, {"explore", "--demo"}}
	for _, c := range commands {
		out, errs, err := runCmd(t, append(c, "--help")...)
		if help := out + errs; !errors.Is(err, flag.ErrHelp) || !strings.Contains(help, "-rpc host:port") || !strings.Contains(help, "use it on a network you trust") {
			t.Errorf("isagi %s --help: %v; --rpc missing from:\n%s", strings.Join(c, " "), err, help)
		}
		_, _, err = runCmd(t, append(c, "--rpc", "host")...)
		if msg := userMessage(err); base.ExitCode(err) != 2 || !strings.Contains(msg, `--rpc "host": "host" has no port`) {
			t.Errorf("isagi %s --rpc host: exit %d, %q", strings.Join(c, " "), base.ExitCode(err), msg)
		}
	}
	run := []string{"run", "--demo", "--prompt", "x", "-n", "1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rpc", ""}, `--rpc "": no address given`},
		{[]string{"--rpc", " "}, `--rpc " ": no address given`},
		{[]string{"--rpc", " , "}, `address 1 of 2 is empty`},
		{[]string{"--rpc", "a:1,,b:2"}, `address 2 of 3 is empty`},
		{[]string{"--rpc", "a:1,b"}, `"b" has no port: want host:port, e.g. b:50052`},
		{[]string{"--rpc", "host:"}, `"host:" has no port`},
		{[]string{"--rpc", ":50052"}, `":50052" has no host`},
		{[]string{"--rpc", "::1:50052"}, `"::1:50052" is not host:port`},
		{[]string{"--rpc", "a:http"}, `"a:http": the port "http" is not a number from 1 to 65535`},
		{[]string{"--rpc", "a:70000"}, `the port "70000" is not a number`},
		{[]string{"--rpc", "a:1, a:1"}, `"a:1" is named twice`},
		{[]string{"--rpc", "x:1", "--gpu"}, "--rpc and --gpu: choose one"},
		{[]string{"--cpu", "--rpc", "x:1"}, "--rpc and --cpu: choose one"},
	} {
		_, errs, err := runCmd(t, append(run, c.args...)...)
		msg := userMessage(err)
		if base.ExitCode(err) != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%q: exit %d, %q; want exit 2 and one line with %q", c.args, base.ExitCode(err), msg, c.want)
		}
		if strings.Contains(errs, "warning") {
			t.Errorf("%q: warned before the flags were accepted:\n%s", c.args, errs)
		}
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestRPCDialFailure: a server that cannot be reached fails the command
// with one line naming it, exit 1, and no warning (it is loopback).
func TestRPCDialFailure(t *testing.T) {
	addr := closedPort(t)
	// The reason is the system's words ("connection refused", perhaps
	// after "connect: "): only its end is checked.
	oneLine := func(s string) bool {
		return strings.HasPrefix(s, "isagi: --rpc: rpc server "+addr+": cannot connect: ") &&
			strings.HasSuffix(s, "connection refused\n") && strings.Count(s, "\n") == 1
	}
	_, errs, code := runMain(t, "run", "--demo", "--rpc", addr, "--prompt", "x", "-n", "1")
	if code != 1 || !oneLine(errs) {
		t.Errorf("exit %d, stderr %q; want exit 1 and one line saying rpc server %s cannot be connected to", code, errs, addr)
	}
	// In process: the error still says why in remote's terms.
	_, errs, err := runCmd(t, "bench", "--demo", "-p", "4", "-n", "2", "--rpc", addr)
	if !errors.Is(err, remote.ErrUnavailable) || base.ExitCode(err) != 1 || !oneLine("isagi: "+userMessage(err)+"\n") || errs != "" {
		t.Errorf("bench: %v (exit %d), stderr %q", err, base.ExitCode(err), errs)
	}
}

// startRPCServer runs ggml's rpc-server ($ISAGI_RPC_SERVER or rpc-server
// on PATH; the test skips without one) on a loopback port for the test and
// returns its address.
func startRPCServer(t *testing.T) string {
	t.Helper()
	bin := peer.RPCServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "-H", "127.0.0.1", "-p", port, "-t", "2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 1000; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			// A probe is a client too; the server takes the next once it
			// sees this one close.
			c.Close()
			return addr
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("rpc-server did not listen on %s", addr)
	return ""
}

// TestRPCRunSession runs a conversation turn through a real rpc-server with
// a session file, greedily, and wants the CPU's reply; the file then
// resumes on the CPU with both turns.
func TestRPCRunSession(t *testing.T) {
	addr := startRPCServer(t)
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	file := dir + "/s.miku"
	args := func(dev ...string) []string {
		return append([]string{"run", "--model", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"), "--prompt", "And God said", "--temp", "0", "-n", "12"}, dev...)
	}
	want, errs, err := runCmd(t, args("--cpu")...)
	if err != nil {
		t.Fatalf("--cpu: %v\n%s", err, errs)
	}
	got, errs, err := runCmd(t, args("--rpc", addr, "--session", file)...)
	if err != nil {
		t.Fatalf("--rpc: %v\n%s", err, errs)
	}
	if got != want {
		t.Errorf("--rpc replied %q, --cpu %q", got, want)
	}
	// The file holds the turn: its running text is the prompt and the reply.
	text := func() string {
		info, errs, err := runCmd(t, "session", "info", file)
		if err != nil {
			t.Fatalf("session info: %v\n%s", err, errs)
		}
		for _, l := range strings.Split(info, "\n") {
			if strings.HasPrefix(l, "conversation") {
				return l
			}
		}
		return info
	}
	first := fmt.Sprintf("completion mode, %d bytes of running text", len("And God said"+strings.TrimRight(want, "\n")))
	if got := text(); !strings.Contains(got, first) {
		t.Errorf("after the turn through the server: %q, want %q", got, first)
	}
	if _, errs, err := runCmd(t, "run", "--model", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"), "--cpu", "--session", file, "--prompt", " more", "--temp", "0", "-n", "4"); err != nil {
		t.Fatalf("resuming on the CPU: %v\n%s", err, errs)
	}
	if got := text(); strings.Contains(got, first) {
		t.Errorf("the turn resumed on the CPU was not added: %q", got)
	}
}
