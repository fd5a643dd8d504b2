//go:build demiurge_nolandlock

package toolhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/dispatch"
)

// With the kernel made to lack Landlock (a test build: go test -tags
// demiurge_nolandlock), an authored tool fails closed: the call fails with
// what the kernel lacks and the worker never starts, whether or not the
// core requires the sandbox.
func TestAuthoredFailsClosedWithoutLandlock(t *testing.T) {
	for _, tool := range []string{"probe_reader", "probe_writer"} {
		t.Run(tool, func(t *testing.T) {
			rec := &recorder{}
			h, ws := probeHost(t, "", rec)
			out := probe(t, h, tool, map[string]any{"action": "write", "path": filepath.Join(ws, "NOTES.md")})
			if out.Status != dispatch.StatusFailed || !strings.Contains(out.Views.Model.String(), "authored tools run only under an enforced OS sandbox") ||
				!strings.Contains(out.Views.Model.String(), "landlock") {
				t.Errorf("status = %s (%s), want failed naming landlock", out.Status, out.Views.Model.String())
			}
			if out.Approval.Via != "" || len(rec.reqs) != 0 {
				t.Errorf("a call that cannot run went to approval (via %q)", out.Approval.Via)
			}
			if _, err := os.Stat(filepath.Join(ws, "NOTES.md")); err == nil {
				t.Error("the tool ran")
			}
		})
	}
}
