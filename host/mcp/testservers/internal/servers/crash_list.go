package servers

import (
	"context"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/mcp/testservers/internal/serve"
)

// CrashList initializes normally and exits with a message on
// stderr when asked for its tools.
func CrashList() {
	hooks := &server.Hooks{}
	hooks.AddBeforeListTools(func(context.Context, any, *mcp.ListToolsRequest) {
		fmt.Fprintln(os.Stderr, "crash_list: crashing in tools/list")
		os.Exit(3)
	})
	s := serve.New("crash_list", server.WithHooks(hooks))
	serve.Raw(s, "never_listed", "", `{"type":"object"}`, serve.Text("x"))
	serve.Run(s, nil)
}
