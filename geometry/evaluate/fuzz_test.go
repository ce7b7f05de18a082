package evaluate_test

import (
	"bytes"
	"testing"

	"github.com/isagi-lab/isagi/geometry/evaluate"
)

// FuzzReadAugmentItems: any bytes give items with every required field or
// one error, never a panic.
func FuzzReadAugmentItems(f *testing.F) {
	f.Add([]byte(`{"question": "q", "answer": "a", "paraphrase": "p", "other": "o", "other_answer": "b"}` + "\n"))
	f.Add([]byte("\n\n{"))
	f.Add([]byte(`{"question": 1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := evaluate.ReadAugmentItems(bytes.NewReader(b))
		if err != nil {
			return
		}
		if len(items) == 0 {
			t.Fatal("no error and no items")
		}
		for _, it := range items {
			if it.Question == "" || it.Answer == "" || it.Paraphrase == "" || it.Other == "" || it.OtherAnswer == "" {
				t.Fatalf("an item without a required field passed: %+v", it)
			}
		}
	})
}
