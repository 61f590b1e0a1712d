//go:build unix

package bulk

import (
	"os"
	"syscall"
)

// stopSignal is SIGSTOP (stop) or SIGCONT.
func stopSignal(stop bool) (os.Signal, error) {
	if stop {
		return syscall.SIGSTOP, nil
	}
	return syscall.SIGCONT, nil
}
