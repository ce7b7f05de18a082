package servecmd

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// TestServeFlags: a --cors that is not an origin and a --body-timeout that
// bounds nothing are usage errors that name the value, before any model
// loads.
func TestServeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--demo", "--cors", "localhost:3000"}, `"localhost:3000" is not an origin`},
		{[]string{"--demo", "--cors", "http://localhost:3000/app"}, `"http://localhost:3000/app" is not an origin`},
		{[]string{"--demo", "--body-timeout", "0s"}, "--body-timeout must be above 0, not 0s"},
	} {
		err := Main(clitest.Env(io.Discard, io.Discard), tc.args)
		var u base.UsageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("serve %q: %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}
