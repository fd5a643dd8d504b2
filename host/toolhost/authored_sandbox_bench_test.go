package toolhost

import (
	"path/filepath"
	"testing"

	"demiurge.dev/host/dispatch"
)

// BenchmarkAuthoredCallSandbox is one whole authored call through the
// host (dispatch, approval, the runtime plugin, a warm worker), sandboxed
// (the default: read-only for this tool) and with the operator's
// --sandbox off, in the same run.
func BenchmarkAuthoredCallSandbox(b *testing.B) {
	for _, mode := range []string{"off", ""} {
		name := "sandboxed"
		if mode == "off" {
			name = "off"
		}
		b.Run(name, func(b *testing.B) {
			h, ws := probeHostTB(b, mode)
			args := map[string]any{"action": "read", "path": filepath.Join(ws, "README.md")}
			if out := probeTB(b, h, "probe_reader", args); out.Status != dispatch.StatusOK {
				b.Fatalf("%s %s", out.Status, out.Views.Model.String())
			}
			for b.Loop() {
				if out := probeTB(b, h, "probe_reader", args); out.Status != dispatch.StatusOK {
					b.Fatalf("%s %s", out.Status, out.Views.Model.String())
				}
			}
		})
	}
}
