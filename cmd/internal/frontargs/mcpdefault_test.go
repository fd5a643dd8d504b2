package frontargs

import (
	"testing"

	"demiurge.dev/host/mcpserve"
)

// TestMCPDefaultIsMcpserves: the front end sends the full CLI's default
// --max-request-kib, which is host/mcpserve's (not linked here).
func TestMCPDefaultIsMcpserves(t *testing.T) {
	if DefaultMCPMaxRequestKiB<<10 != mcpserve.DefaultMaxRequestBytes {
		t.Fatalf("DefaultMCPMaxRequestKiB is %d KiB, mcpserve.DefaultMaxRequestBytes %d bytes", DefaultMCPMaxRequestKiB, mcpserve.DefaultMaxRequestBytes)
	}
}

// TestMCPMaxConcurrentIsMcpserves: --max-concurrent's default too.
func TestMCPMaxConcurrentIsMcpserves(t *testing.T) {
	if DefaultMCPMaxConcurrent != mcpserve.DefaultMaxConcurrent {
		t.Fatalf("DefaultMCPMaxConcurrent is %d, mcpserve.DefaultMaxConcurrent %d", DefaultMCPMaxConcurrent, mcpserve.DefaultMaxConcurrent)
	}
}
