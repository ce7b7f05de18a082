package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/remote"
)

// TestRPCReport: bench's report (text and JSON) shows each rpc-server with
// its layers and memory, and the traffic per decoded token.
func TestRPCReport(t *testing.T) {
	servers := []remote.ServerInfo{
		{Addr: "127.0.0.1:50052", Free: 47 << 29, Total: 47 << 29, FirstLayer: 0, LayersCount: 15},
		{Addr: "10.0.0.2:50052", Free: 11 << 30, Total: 12 << 30, FirstLayer: 15, LayersCount: 15},
		{Addr: "10.0.0.3:50052", Free: 1 << 20, Total: 2 << 20, FirstLayer: -1},
	}
	want := []string{
		"127.0.0.1:50052 · layers 0–14 · 23.50 GiB free of 23.50 GiB",
		"10.0.0.2:50052 · layers 15–29 · 11.00 GiB free of 12.00 GiB",
		"10.0.0.3:50052 · no layers · 1.00 MiB free of 2.00 MiB",
	}
	before := remote.Stats{Requests: 10, RoundTrips: 5, Sent: 1000, Received: 500, Graphs: 2, Recomputes: 1}
	after := remote.Stats{Requests: 50, RoundTrips: 25, Sent: 1000 + 20*3174, Received: 500 + 20*2048, Graphs: 22, Recomputes: 17}
	r := benchReport{Backend: "rpc × 3 (…)", DecodeToks: 21, Servers: servers, RPC: rpcPerToken(before, after, 20)}
	if rpcPerToken(before, after, 0) != nil {
		t.Error("traffic per token over no decode step")
	}
	var out bytes.Buffer
	if err := r.write(&out, false, false); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"backend      rpc × 3 (…)\nserver       " + want[0] + "\nserver       " + want[1] + "\nserver       " + want[2] + "\n",
		"rpc          1.0 round trips · 3.1 KiB sent · 2.0 KiB received · 0.8 recomputes per decoded token\n",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("bench report lacks %q:\n%s", w, out.String())
		}
	}
	out.Reset()
	if err := r.write(&out, true, false); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Servers []remote.ServerInfo `json:"servers"`
		RPC     map[string]float64  `json:"rpc_per_token"`
	}
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Servers) != 3 || j.Servers[1] != servers[1] || j.RPC["round_trips"] != 1 || j.RPC["sent_bytes"] != 3174 || j.RPC["recomputes"] != 0.8 {
		t.Errorf("bench --json: %+v\n%s", j, out.String())
	}
	// Without --rpc neither is there.
	out.Reset()
	if err := (benchReport{}).write(&out, true, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "servers") || strings.Contains(out.String(), "rpc_per_token") {
		t.Errorf("servers or traffic without --rpc:\n%s", out.String())
	}
}
