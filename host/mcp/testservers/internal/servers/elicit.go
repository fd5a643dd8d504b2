package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/mcp/testservers/internal/serve"
)

// Elicit has one tool, form, that asks the client for a form
// (elicitation/create) during the call, with defaults for every field and
// an escape sequence in its message, and answers with what the client
// sent back. With RECORD_AT set it also asks for the form outside any
// call, right after tools/list, and writes the client's action there.
func Elicit() {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"name":  map[string]any{"type": "string", "description": "Who asks", "default": "Ada"},
		"count": map[string]any{"type": "integer", "default": 3},
	}}
	var s *server.MCPServer
	hooks := &server.Hooks{}
	if record := os.Getenv("RECORD_AT"); record != "" {
		hooks.AddAfterListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest, _ *mcp.ListToolsResult) {
			go func() {
				res, err := s.RequestElicitation(context.WithoutCancel(ctx), mcp.ElicitationRequest{
					Params: mcp.ElicitationParams{Message: "between calls", RequestedSchema: schema},
				})
				action := "error: " + fmt.Sprint(err)
				if err == nil {
					action = string(res.Action)
				}
				_ = os.WriteFile(record, []byte(action), 0o644)
			}()
		})
	}
	s = serve.New("elicit", server.WithElicitation(), server.WithHooks(hooks))
	serve.Raw(s, "form", "Asks the client for a form.", `{"type":"object"}`,
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := server.ServerFromContext(ctx).RequestElicitation(ctx, mcp.ElicitationRequest{
				Params: mcp.ElicitationParams{Message: "Your name, please \x1b[2J", RequestedSchema: schema},
			})
			if err != nil {
				return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
			}
			b, _ := json.Marshal(res.ElicitationResponse)
			return mcp.NewToolResultText(string(b)), nil
		})
	serve.Run(s, nil)
}
