package approval

import (
	"testing"

	"go.uber.org/goleak"
)

// The terminal provider reads in a goroutine; none may outlive its test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
