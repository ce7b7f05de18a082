package cog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// sample builds a manifold with every kind of content: all tiers, uses,
// evictions, a zero embedding, non-ASCII and empty strings, a time with a
// zone and a monotonic reading, and a zero time.
func sample(t testing.TB) *Manifold {
	t.Helper()
	r := rand.New(rand.NewPCG(21, 22))
	m := mustNew(t, Config{Dim: 5, Capacity: 12, Eta: 0.05})
	zone := time.FixedZone("JST", 9*3600)
	for i := range 20 {
		q := randVec(r, 5)
		if i == 3 {
			q = make([]float64, 5)
		}
		now := t0.Add(time.Duration(i) * 1500 * time.Millisecond).In(zone)
		if i == 7 {
			now = time.Now()
		}
		if i == 9 {
			now = time.Time{}
		}
		key := ""
		if i%2 == 1 {
			key = "state ミク " + string(rune('0'+i%5))
		}
		where := Uncontexted()
		switch i % 3 {
		case 1:
			where = Context{ID: "conversation " + string(rune('0'+i%4)), Portable: i%2 == 0}
		case 2:
			where = Context{ID: "ミク", Portable: false}
		}
		tr, err := m.RecordIn(q, "prompt ミク "+string(rune('a'+i)), "", key, where, Tier(i%NumTiers), now)
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if err := m.Touch(tr.ID, now.Add(time.Nanosecond)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return m
}

func sameManifold(t *testing.T, a, b *Manifold) {
	t.Helper()
	if a.Dim() != b.Dim() || a.Cap() != b.Cap() || a.Eta() != b.Eta() || a.nextID != b.nextID ||
		a.nextCluster != b.nextCluster || a.Clusters() != b.Clusters() || a.Len() != b.Len() {
		t.Fatalf("parameters differ: %+v vs %+v", a, b)
	}
	if !slices.Equal(a.metric.m, b.metric.m) {
		t.Fatal("metrics differ")
	}
	ta, tb := a.Trajectories(), b.Trajectories()
	for i := range ta {
		x, y := ta[i], tb[i]
		if x.ID != y.ID || x.Prompt != y.Prompt || x.Answer != y.Answer || x.Key != y.Key || x.Context != y.Context || x.Tier != y.Tier ||
			x.Cluster != y.Cluster || x.Uses != y.Uses || !x.Time.Equal(y.Time) ||
			!x.LastUsed.Equal(y.LastUsed) || !slices.Equal(x.Embedding, y.Embedding) {
			t.Fatalf("trajectory %d differs:\n%+v\n%+v", i, x, y)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	m := sample(t)
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Manifold
	if err := back.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	sameManifold(t, m, &back)
	again, err := back.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Fatal("re-encoding differs")
	}
	// The decoded manifold behaves the same: same answers, same updates.
	r := rand.New(rand.NewPCG(23, 24))
	for range 30 {
		q := randVec(r, 5)
		x, err1 := m.Query(q)
		y, err2 := back.Query(q)
		if err1 != nil || err2 != nil || x.Trajectory.ID != y.Trajectory.ID || math.Abs(x.Distance-y.Distance) > 1e-12 {
			t.Fatalf("queries differ: %+v %v / %+v %v", x, err1, y, err2)
		}
		if _, err := m.Record(q, "", "", x.Tier, t0); err != nil {
			t.Fatal(err)
		}
		if _, err := back.Record(q, "", "", y.Tier, t0); err != nil {
			t.Fatal(err)
		}
	}
	sameManifold(t, m, &back)

	empty := mustNew(t, Config{Dim: 1})
	data, err = empty.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(data)
	if err != nil || d.Len() != 0 || d.Dim() != 1 {
		t.Fatalf("empty round trip: %v", err)
	}
	if _, err := (&Manifold{}).MarshalBinary(); err == nil {
		t.Error("zero Manifold marshalled")
	}
}

func TestDecodeCorrupt(t *testing.T) {
	m := sample(t)
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(data) {
		if _, err := Decode(data[:n]); !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("prefix of %d/%d bytes: %v", n, len(data), err)
		}
	}
	k := 5
	metricAt := headerLen
	recAt := metricAt + 8*k*(k+1)/2
	put64 := func(b []byte, off int, v uint64) []byte {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint64(c[off:], v)
		return c
	}
	put32 := func(b []byte, off int, v uint32) []byte {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint32(c[off:], v)
		return c
	}
	cases := map[string]struct {
		data []byte
		want error
	}{
		"magic":          {append([]byte("XOGM"), data[4:]...), ErrCorrupt},
		"version 0":      {append(append([]byte("COGM"), 0, 0), data[6:]...), ErrCorrupt},
		"newer version":  {append(append([]byte("COGM"), EncodingVersion+1, 0), data[6:]...), ErrVersion},
		"dimension 0":    {put32(data, 6, 0), ErrCorrupt},
		"huge dimension": {put32(data, 6, 1<<31), ErrCorrupt},
		"capacity 0":     {put32(data, 10, 0), ErrCorrupt},
		"NaN eta":        {put64(data, 14, math.Float64bits(math.NaN())), ErrCorrupt},
		"over capacity":  {put32(data, 38, 13), ErrCorrupt},
		"huge count":     {put32(data, 38, math.MaxUint32), ErrCorrupt},
		"count short":    {put32(data, 38, 11), ErrCorrupt}, // leftover bytes
		"NaN metric":     {put64(data, metricAt, math.Float64bits(math.NaN())), ErrCorrupt},
		"not PD":         {put64(data, metricAt, math.Float64bits(-1)), ErrCorrupt},
		"id past next":   {put64(data, recAt, 1<<40), ErrCorrupt},
		"bad cluster":    {put64(data, recAt+8, 1<<40), ErrCorrupt},
		"bad tier":       {func() []byte { c := bytes.Clone(data); c[recAt+16] = 4; return c }(), ErrCorrupt},
		"huge uses":      {put64(data, recAt+17, math.MaxUint64), ErrCorrupt},
		"bad nanos":      {put32(data, recAt+25+8, 1e9), ErrCorrupt},
		"inf embedding":  {put64(data, recAt+49, math.Float64bits(math.Inf(1))), ErrCorrupt},
		"huge string":    {put32(data, recAt+49+8*k, math.MaxUint32), ErrTruncated},
		"trailing byte":  {append(bytes.Clone(data), 0), ErrCorrupt},
	}
	// Duplicate id: give the second record the first one's id.
	pl := int(binary.LittleEndian.Uint32(data[recAt+49+8*k:]))
	al := int(binary.LittleEndian.Uint32(data[recAt+49+8*k+4+pl:]))
	kl := int(binary.LittleEndian.Uint32(data[recAt+49+8*k+8+pl+al:]))
	cl := int(binary.LittleEndian.Uint32(data[recAt+49+8*k+12+pl+al+kl:]))
	second := recAt + fixedRecordLen + 8*k + pl + al + kl + cl
	cases["duplicate id"] = struct {
		data []byte
		want error
	}{put64(data, second, binary.LittleEndian.Uint64(data[recAt:])), ErrCorrupt}
	cases["bad portable flag"] = struct {
		data []byte
		want error
	}{func() []byte { c := bytes.Clone(data); c[second-1] = 2; return c }(), ErrCorrupt}
	cases["huge context"] = struct {
		data []byte
		want error
	}{put32(data, recAt+49+8*k+12+pl+al+kl, math.MaxUint32), ErrTruncated}
	for name, c := range cases {
		var got Manifold
		err := got.UnmarshalBinary(c.data)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
		if got.metric.k != 0 {
			t.Errorf("%s: failed decode changed the receiver", name)
		}
	}
}

// FuzzDecode: Decode never panics, every error wraps one sentinel, and
// whatever it accepts is canonical: it re-encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	full, err := sample(f).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	empty, err := mustNew(f, Config{Dim: 2}).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	f.Add(empty)
	f.Add(full[:len(full)/2])
	f.Add(append(bytes.Clone(empty), 1))
	f.Add([]byte("COGM\x01\x00"))
	for _, ver := range []uint16{1, 2} {
		if old, err := encodeOld(sample(f), ver); err == nil {
			f.Add(old)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := bytes.Clone(data)
		m, err := Decode(data)
		if !bytes.Equal(in, data) {
			t.Fatal("Decode modified its input")
		}
		if err != nil {
			if m != nil {
				t.Fatal("a manifold and an error")
			}
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		out, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if binary.LittleEndian.Uint16(data[4:]) < EncodingVersion {
			// An older version is read and written back as the current
			// one: that encoding must be canonical in turn.
			data = out
			if m, err = Decode(data); err != nil {
				t.Fatalf("the upgraded encoding does not decode: %v", err)
			}
			if out, err = m.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(out, data) {
			t.Fatalf("accepted input is not canonical:\n in %x\nout %x", data, out)
		}
		// And it is usable.
		if _, err := m.Query(make([]float64, m.Dim())); err != nil {
			t.Fatal(err)
		}
	})
}

// encodeOld writes m as encoding version 1 or 2, as builds before keys
// (1) or contexts (2) wrote it: the trajectories' keys and contexts are
// left out.
func encodeOld(m *Manifold, version uint16) ([]byte, error) {
	data, err := m.MarshalBinary()
	if err != nil {
		return nil, err
	}
	k := m.Dim()
	out := append([]byte(nil), data[:headerLen+8*k*(k+1)/2]...)
	binary.LittleEndian.PutUint16(out[4:], version)
	off := len(out)
	for range m.entries {
		fixed := fixedRecordLen1 - 8 + 8*k // up to the strings
		pl := int(binary.LittleEndian.Uint32(data[off+fixed:]))
		al := int(binary.LittleEndian.Uint32(data[off+fixed+4+pl:]))
		kl := int(binary.LittleEndian.Uint32(data[off+fixed+8+pl+al:]))
		cl := int(binary.LittleEndian.Uint32(data[off+fixed+12+pl+al+kl:]))
		keep := fixed + 8 + pl + al // version 1: no key
		if version == 2 {
			keep += 4 + kl
		}
		out = append(out, data[off:off+keep]...)
		off += fixed + 16 + pl + al + kl + cl + 1
	}
	return out, nil
}

// TestDecodeOldVersions: a manifold saved before keys (version 1) or
// contexts (version 2) existed decodes with every trajectory's Key empty
// (version 1), its Context Uncontexted, and everything else as it was.
func TestDecodeOldVersions(t *testing.T) {
	m := sample(t)
	for _, ver := range []uint16{1, 2} {
		data, err := encodeOld(m, ver)
		if err != nil {
			t.Fatal(err)
		}
		old, err := Decode(data)
		if err != nil {
			t.Fatalf("version %d: %v", ver, err)
		}
		want := m.Trajectories()
		got := old.Trajectories()
		if len(got) != len(want) {
			t.Fatalf("version %d: %d trajectories, want %d", ver, len(got), len(want))
		}
		for i := range got {
			if ver == 1 && got[i].Key != "" {
				t.Errorf("trajectory %d: key %q from a version 1 encoding", i, got[i].Key)
			}
			if ver == 2 && got[i].Key != want[i].Key {
				t.Errorf("trajectory %d: key %q from a version 2 encoding, want %q", i, got[i].Key, want[i].Key)
			}
			if got[i].Context != Uncontexted() {
				t.Errorf("version %d, trajectory %d: context %+v, want Uncontexted", ver, i, got[i].Context)
			}
			if got[i].ID != want[i].ID || got[i].Prompt != want[i].Prompt || !slices.Equal(got[i].Embedding, want[i].Embedding) {
				t.Errorf("version %d, trajectory %d: %+v, want %+v", ver, i, got[i], want[i])
			}
		}
		if old.Growth() != m.Growth() {
			t.Errorf("version %d: growth %v, want %v", ver, old.Growth(), m.Growth())
		}
	}
}

func BenchmarkQuery10k(b *testing.B) {
	const k, n = 64, 10000
	r := rand.New(rand.NewPCG(31, 32))
	m := mustNew(b, Config{Dim: k, Capacity: n})
	for range n {
		if _, err := m.Record(randVec(r, k), "prompt", "answer", Explore, t0); err != nil {
			b.Fatal(err)
		}
	}
	q := randVec(r, k)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Query(q); err != nil {
			b.Fatal(err)
		}
	}
}
