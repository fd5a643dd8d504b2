package sdk

import (
	"testing"

	"go.uber.org/goleak"
)

// The server tests run real gRPC servers and broker connections; every one
// of their goroutines must be gone when the tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
