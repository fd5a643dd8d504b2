package plugintest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// WaitFor polls cond until it holds, or fails t once d has passed.
func WaitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// ProcessesWith are the pids whose command line has arg as one of its
// words: how a test finds the process tree a call started, by a marker.
func ProcessesWith(arg string) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []string
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		for _, a := range strings.Split(string(b), "\x00") {
			if a == arg {
				pids = append(pids, filepath.Base(d))
			}
		}
	}
	return pids
}
