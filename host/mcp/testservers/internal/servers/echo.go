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
// a tool that makes it exit; with ESCAPE_CHILDREN=SECONDS, two sleeps that
// leave its process group (a child in a session of its own, and a
// daemon: a grandchild in a session of its own whose parent exited, so it
// is an orphan) and a tool, escapees, that names their pids.
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
	var escapees string
	if secs := os.Getenv("ESCAPE_CHILDREN"); secs != "" {
		escapees = escape(secs)
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
	if escapees != "" {
		serve.Raw(s, "escapees", "The pids of its children in sessions of their own.", `{"type":"object"}`, serve.Text(escapees))
	}
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

// escape starts a child in a session of its own (setsid(2)) and a daemon
// (setsid(1) in a shell that exits at once, leaving it to whoever reaps
// orphans), and returns their pids.
func escape(secs string) string {
	child := exec.Command("sleep", secs)
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := exec.Command("/bin/sh", "-c", "setsid sleep \"$0\" </dev/null >/dev/null 2>&1 & echo $!", secs).Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return fmt.Sprintf("%d %s", child.Process.Pid, strings.TrimSpace(string(out)))
}
