package sessioncmd

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// TestSessionInfoNotAFile: session info on a device or a directory returns
// at once with an error instead of reading /dev/zero until memory runs
// out.
func TestSessionInfoNotAFile(t *testing.T) {
	paths := []string{t.TempDir()}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		done := make(chan error, 1)
		go func() {
			_, _, err := clitest.Run(t, Main, "info", p)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a .miku file") {
				t.Fatalf("session info %s: %v", p, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("session info %s did not return in 10 s", p)
		}
	}
}
