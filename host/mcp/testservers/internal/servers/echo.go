package servers

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/mcp/testservers/internal/serve"
)

const pickSchema = `{"type":"object","properties":{"a":{"type":"string"},"b":{"$ref":"#/$defs/num"}},"anyOf":[{"required":["a"]},{"required":["b"]}],"oneOf":[{"required":["a"]},{"required":["b"]}],"$defs":{"num":{"type":"integer","minimum":0}},"additionalProperties":false}`

// Echo is a healthy MCP test server: echo, a tool whose schema has
// top-level anyOf, oneOf and $defs (it must reach the catalog unchanged),
// the environment it was given, its process ids, and (SPAWN_CHILD=1) a
// child process of its own, to show that closing kills the whole tree;
// with READ_TOOL=1, a tool that returns a file's text; with EXIT_TOOL=1,
// a tool that makes it exit.
func Echo() {
	fmt.Fprintf(os.Stderr, "echo server starting; token=%s\n", os.Getenv("ECHO_TOKEN"))
	var child *exec.Cmd
	if os.Getenv("SPAWN_CHILD") == "1" {
		child = exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	s := serve.New("echo")
	serve.Raw(s, "echo", "Echoes its text.", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := r.GetString("text", "")
			if text == "fail" {
				return mcp.NewToolResultError("asked to fail"), nil
			}
			return mcp.NewToolResultText(text), nil
		})
	serve.Raw(s, "pick", "Takes a or b.", pickSchema, serve.Text("picked"))
	serve.Raw(s, "env", "Lists its environment.", `{"type":"object","properties":{}}`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strings.Join(os.Environ(), "\n")), nil
		})
	serve.Raw(s, "pids", "Its pid, process group and child pid.", `{"type":"object"}`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			pgid, _ := syscall.Getpgid(0)
			cpid := 0
			if child != nil {
				cpid = child.Process.Pid
			}
			return mcp.NewToolResultText(fmt.Sprintf("%d %d %d", os.Getpid(), pgid, cpid)), nil
		})
	if os.Getenv("READ_TOOL") == "1" {
		// A file server's everyday answer: the bytes of a file it was asked for.
		serve.Raw(s, "read", "Returns a file's text.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
			func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				b, err := os.ReadFile(r.GetString("path", ""))
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				return mcp.NewToolResultText(string(b)), nil
			})
	}
	if os.Getenv("EXIT_TOOL") == "1" {
		serve.Raw(s, "exit", "Exits the server at once, leaving its child.", `{"type":"object"}`,
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				os.Exit(0)
				return nil, nil
			})
	}
	serve.Run(s, nil)
}
