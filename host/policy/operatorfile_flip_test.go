package policy

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestAnOperatorFileRacedByARetargetedLinkIsNeverTheAgents: a link
// flipped back and forth between the operator's directory and one in the
// workspace while the file is read, no hook: whatever is read is the
// operator's, or refused.
func TestAnOperatorFileRacedByARetargetedLinkIsNeverTheAgents(t *testing.T) {
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	bad, good := filepath.Join(ws, "cfg"), filepath.Join(top, "real", "cfg")
	for _, d := range []string{bad, good, filepath.Join(top, "config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(bad, "approvals.yaml"), []byte("agent's\n"), 0o600)
	_ = os.WriteFile(filepath.Join(good, "approvals.yaml"), []byte("operator's\n"), 0o600)
	link := filepath.Join(top, "config", "demiurge")
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; !stop.Load(); i++ {
			target := good
			if i%2 == 0 {
				target = bad
			}
			tmp := link + ".new"
			_ = os.Symlink(target, tmp)
			_ = os.Rename(tmp, link)
		}
	}()
	off := []AgentDir{{Name: "workspace", Path: ws}}
	agents, operators, refused := 0, 0, 0
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		data, err := ReadOperatorFile(filepath.Join(link, "approvals.yaml"), "approvals file", off)
		switch {
		case err != nil || data == nil:
			refused++
		case string(data) == "agent's\n":
			agents++
		default:
			operators++
		}
	}
	stop.Store(true)
	<-done
	t.Logf("%d reads of the operator's file, %d refused, %d of the agent's", operators, refused, agents)
	if agents > 0 {
		t.Fatalf("the agent's file was read as the operator's %d times", agents)
	}
}
