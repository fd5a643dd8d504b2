package servers

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/mcp/testservers/internal/serve"
)

// Progress has one tool, slow, that sends three notifications/progress
// for the request's progress token (if the client gave one) before it
// answers; the last message carries a control sequence and a value that
// the host must not pass through raw.
func Progress() {
	s := serve.New("progress")
	serve.Raw(s, "slow", "Works in three steps, reporting progress.", `{"type":"object"}`,
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var token mcp.ProgressToken
			if r.Params.Meta != nil {
				token = r.Params.Meta.ProgressToken
			}
			for i, msg := range []string{"step one", "step two", "step \x1b[2Jthree"} {
				if token != nil {
					_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress", map[string]any{
						"progressToken": token, "progress": i + 1, "total": 3, "message": msg,
					})
				}
				time.Sleep(50 * time.Millisecond)
			}
			return mcp.NewToolResultText("done in three steps"), nil
		})
	serve.Run(s, nil)
}
