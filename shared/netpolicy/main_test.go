package netpolicy

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run when a connection or server goroutine outlives
// the tests (the shared module keeps its dependencies to the standard
// library, so this is a small goleak).
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := waitForLeaks(5 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines leaked by the tests:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

var leakMarkers = []string{"net/http.(*persistConn)", "net/http.(*conn).serve", "net/http.(*Server).Serve", "netpolicy.TestCorpus"}

func waitForLeaks(within time.Duration) string {
	deadline := time.Now().Add(within)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		var leaked []string
		for _, g := range strings.Split(stacks, "\n\n") {
			for _, m := range leakMarkers {
				if strings.Contains(g, m) {
					leaked = append(leaked, g)
					break
				}
			}
		}
		if len(leaked) == 0 {
			return ""
		}
		if time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
