// Package serve holds what the failure-case MCP test servers share: a
// server with tools enabled, and serving it on stdio or, with
// -http ADDR, as streamable HTTP (printing its URL on stdout).
package serve

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// New is a server named name that offers tools.
func New(name string, opts ...server.ServerOption) *server.MCPServer {
	return server.NewMCPServer(name, "1.0.0", append([]server.ServerOption{server.WithToolCapabilities(false)}, opts...)...)
}

// Raw adds a tool whose schema is sent exactly as given.
func Raw(s *server.MCPServer, name, desc, schema string, h server.ToolHandlerFunc) {
	s.AddTool(mcp.NewToolWithRawSchema(name, desc, json.RawMessage(schema)), h)
}

// Text is a handler that answers with fixed text.
func Text(text string) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(text), nil
	}
}

// Run serves s on stdio, or on HTTP when -http is given; stdout is the
// protocol stream, so a caller wraps it through out.
func Run(s *server.MCPServer, out func(io.Writer) io.Writer) {
	addr := flag.String("http", "", "serve streamable HTTP on this address and print the URL")
	flag.Parse()
	if *addr != "" {
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("http://%s/mcp\n", ln.Addr())
		mux := http.NewServeMux()
		mux.Handle("/mcp", server.NewStreamableHTTPServer(s))
		if err := http.Serve(ln, mux); err != nil {
			os.Exit(1)
		}
		return
	}
	var w io.Writer = os.Stdout
	if out != nil {
		w = out(os.Stdout)
	}
	if err := server.NewStdioServer(s).Listen(context.Background(), os.Stdin, w); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
}
