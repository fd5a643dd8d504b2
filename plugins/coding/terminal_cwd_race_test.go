package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTerminalCwdSwapRace runs terminal calls with cwd "sub" while another
// goroutine keeps swapping sub for a symlink to a directory outside the
// workspace and back: whatever the interleaving of check, pin and start,
// no command may ever run outside.
func TestTerminalCwdSwapRace(t *testing.T) {
	c := newTerminalCall(t)
	sub := filepath.Join(c.ws, "sub")
	outside := filepath.Join(filepath.Dir(c.ws), "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Rename(sub, sub+".moved")
			_ = os.Symlink(outside, sub)
			_ = os.Remove(sub)
			_ = os.Rename(sub+".moved", sub)
		}
	}()
	defer func() { close(stop); <-stopped }()
	ran, refused := 0, 0
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		res := c.run(t, `{"command":"touch ran-here","cwd":"sub"}`, nil)
		if res.IsError {
			refused++
		} else {
			ran++
		}
		if _, err := os.Stat(filepath.Join(outside, "ran-here")); err == nil {
			t.Fatalf("a command ran outside the workspace after %d runs", ran)
		}
	}
	t.Logf("%d ran, %d refused while sub was being swapped", ran, refused)
	if ran == 0 {
		t.Fatal("no command ran: the race was not exercised")
	}
}
