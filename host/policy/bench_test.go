package policy

import "testing"

func BenchmarkAssessReadInside(b *testing.B) {
	spec := readSpec()
	args := map[string]any{"path": "src/pkg/main.go"}
	for b.Loop() {
		if _, err := Assess(spec, spec.Metadata, args, ws); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGate(b *testing.B) {
	caps, _ := NewCapabilitySet([]string{"fs.read", "fs.write", "mcp.call:*", "terminal.exec"})
	a := Authority{Capabilities: caps}
	req := []string{"fs.read", "mcp.call:github"}
	for b.Loop() {
		if err := Gate(req, a, nil); err != nil {
			b.Fatal(err)
		}
	}
}
