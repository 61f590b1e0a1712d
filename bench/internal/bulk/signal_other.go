//go:build !unix

package bulk

import (
	"errors"
	"os"
)

// stopSignal: a process cannot be stopped and resumed by a signal here.
func stopSignal(bool) (os.Signal, error) {
	return nil, errors.New("bulk: an outage by SIGSTOP needs a Unix system")
}
