package main

import (
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkListFromSnapshot is the launcher's own work for a warm tools
// list, in process: load the core, discover plugins, stat the key's files,
// read the snapshot, resolve and render. Process start-up (exec, the Go
// runtime, package init) comes on top; BenchmarkToolsListWarm in
// cmd/demiurge measures the whole.
func BenchmarkListFromSnapshot(b *testing.B) {
	r := newRig(b)
	if res := r.launcher("tools", "list"); res.code != 0 {
		b.Fatalf("cold run: %s", res)
	}
	req := listRequest{state: r.state, workspace: r.ws, display: "summary"}
	for _, mode := range []string{"summary", "full"} {
		req.display = mode
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				if code, ok := listFromSnapshot(req, r.bin, filepath.Join(r.bin, HostBinary), io.Discard, io.Discard); !ok || code != 0 {
					b.Fatalf("not answered from the snapshot: %d %v", code, ok)
				}
			}
		})
	}
}
