package model

import "testing"

// lastBlock records the last block's output for every position.
type lastBlock struct {
	layer int
	got   []float32
}

func (l *lastBlock) AfterBlock(layer, _ int, x []float32) {
	if layer == l.layer {
		l.got = append(l.got, x...)
	}
}

// Classify on the stored last-block states gives Forward's logits bit for
// bit, for one state and for many.
func TestClassifyMatchesForward(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	st, err := m.NewStateOn(64, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	rec := &lastBlock{layer: m.Layers - 1}
	if _, err := st.AddHook(rec); err != nil {
		t.Fatal(err)
	}
	ids := []int32{1, 400, 391, 1027, 29, 300, 17, 1200}
	want := make([]float32, len(ids)*m.Vocab)
	if err := st.Forward(ids, want); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, len(ids)*m.Vocab)
	if err := st.Classify(rec.got, got); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("logit %d: classify %v, forward %v", i, got[i], want[i])
		}
	}
	one := make([]float32, m.Vocab)
	last := rec.got[(len(ids)-1)*m.Dim:]
	if err := st.Classify(last, one); err != nil {
		t.Fatal(err)
	}
	for i, v := range one {
		if v != want[(len(ids)-1)*m.Vocab+i] {
			t.Fatalf("single state, logit %d: %v vs %v", i, v, want[(len(ids)-1)*m.Vocab+i])
		}
	}
	if err := st.Classify(rec.got[:m.Dim+1], got[:m.Vocab]); err == nil {
		t.Fatal("a ragged state was accepted")
	}
}
