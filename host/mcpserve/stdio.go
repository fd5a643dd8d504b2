package mcpserve

import (
	"context"
	"io"
	"log"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves one client on in/out until in ends or ctx is done;
// the client's session ends with it, cancelling its calls still running.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, errLog io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.Watch(ctx)
	std := server.NewStdioServer(s.mcp)
	std.SetErrorLogger(log.New(errLog, "demiurge mcp serve: ", 0))
	err := std.Listen(ctx, in, out)
	s.Close()
	if err == io.EOF || ctx.Err() != nil {
		return nil
	}
	return err
}
