//go:build unix

package regfile

import "syscall"

// nonblock keeps open(2) from waiting for a writer when the path is a FIFO.
const nonblock = syscall.O_NONBLOCK
