package servers

import (
	"context"
	"os"

	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/mcp/testservers/internal/serve"
)

// NeverReturns has a tool that never answers: it waits until the
// client cancels the request, then writes "cancelled" to $MARKER_AT.
// The reason the client gave in its notifications/cancelled is written
// to $REASON_AT first.
func NeverReturns() {
	if f := os.Getenv("REASON_AT"); f != "" {
		serve.WatchCancelReasons(func(reason string) { _ = os.WriteFile(f, []byte(reason), 0o644) })
	}
	s := serve.New("never_returns")
	serve.Raw(s, "wait", "Waits forever.", `{"type":"object"}`,
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			if f := os.Getenv("MARKER_AT"); f != "" {
				_ = os.WriteFile(f, []byte("cancelled"), 0o644)
			}
			return nil, ctx.Err()
		})
	serve.Run(s, nil)
}
