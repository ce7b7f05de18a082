package cuda

import (
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
)

// TestNewKVRefusesCompactTypes: the device kernels read float32 caches
// only, so f16 and q8_0 are refused in one sentence, before the device is
// touched.
func TestNewKVRefusesCompactTypes(t *testing.T) {
	for _, typ := range []backend.KVType{backend.KVF16, backend.KVQ8_0} {
		_, err := new(Backend).NewKV(2, 16, backend.Attention{Heads: 4, KVHeads: 2, HeadDim: 64, KV: typ})
		if err == nil || !strings.Contains(err.Error(), "KV cache type "+typ.String()+" is not supported") {
			t.Errorf("%s: %v, want a refusal naming the type", typ, err)
		}
	}
}
