package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestOneShotThroughTheHostStreams: through the long-lived host, a
// one-shot `tools call` on a terminal shows the call's output as it
// comes and a progress spinner while it runs, as the in-process command
// does, not only the card at the end.
func TestOneShotThroughTheHostStreams(t *testing.T) {
	builtin, _ := testPlugins(t)
	state, err := os.MkdirTemp("", "demiurge-oneshot-stream-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	t.Cleanup(func() { exec.Command(demiurgeBinary(t), "--state", state, "host", "stop").Run() })
	s := startOneShot(t, []string{"DEMIURGE_HOST=on", "DEMIURGE_HOST_IDLE_EXIT=1m"}, "--state", state, "--plugin-dir", builtin,
		"--workspace", t.TempDir(), "--approve", "allow:terminal",
		"tools", "call", "terminal", `{"command":"echo first-$((2*3)); sleep 3; echo second-$((3*3))"}`)
	began := time.Now()
	s.see("first-6")
	if el := time.Since(began); el > 20*time.Second {
		t.Fatalf("the first line took %v", el)
	}
	at := s.at
	// The spinner (after 700 ms, every 100 ms) draws while the call runs,
	// before the second line comes.
	s.see("\033[K")
	if strings.Contains(s.since(at), "second-9") {
		t.Fatal("no progress line was drawn while the call ran")
	}
	s.see("second-9")
	s.waitExit(30 * time.Second)
}
