package dispatch

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"demiurge.dev/host/egress"
)

// TestCallAuditSaysHowManyWereFolded: a command's proxy that saw more
// connections than it keeps in full gives the call's audit those it kept
// and one last entry of kind "folded" counting the rest.
func TestCallAuditSaysHowManyWereFolded(t *testing.T) {
	px, err := egress.Start(egress.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := 0; i < n; i++ {
		c, err := net.Dial("unix", px.Socket())
		if err != nil {
			t.Fatal(err)
		}
		// Refused before any lookup: port 22 is not allowed.
		fmt.Fprintf(c, "CONNECT h%d.test:22 HTTP/1.1\r\nHost: x\r\n\r\n", i)
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.Copy(io.Discard, c)
		c.Close()
	}
	for len(px.Events())+px.Folded().Count < n {
		time.Sleep(5 * time.Millisecond)
	}
	px.Close()
	c := &commandPlan{egress: px}
	c.closeEgress()
	audit := connectionAudit(c.connections, c.folded)
	last := audit[len(audit)-1]
	f, ok := last["folded"].(egress.Folded)
	if last["kind"] != "folded" || !ok || len(c.connections)+f.Count != n || f.Verdicts["refused"] != f.Count || len(audit) != len(c.connections)+1 {
		t.Fatalf("%d entries, last %+v", len(audit), last)
	}
}
