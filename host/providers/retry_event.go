package providers

import (
	"errors"
	"net"
	"syscall"
	"time"
)

// ErrNoKey: the provider's key variable is not set (a usage mistake, which
// `demiurge run` answers with exit status 2).
var ErrNoKey = errors.New("no API key")

// Retry is one retry of a model step, as the front end is told of it.
type Retry struct {
	// Try is the number of the try that follows, of Of at most.
	Try, Of int
	// Wait is how long the host waits before it.
	Wait time.Duration
	// Why is the failed try's error, scrubbed of the key.
	Why string
}

// unreachable: nothing listens at the address, or the name does not
// resolve. Four tries of it only delay the same answer.
func unreachable(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}
