package mcpserve

import (
	"context"
	"encoding/json"
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
	logger := log.New(errLog, "demiurge mcp serve: ", 0)
	std.SetErrorLogger(logger)
	gate := newRequestGate(s.opts.MaxStdioRequests)
	w := &lineWriter{out: out, written: gate.written}
	max := s.opts.MaxRequestBytes
	lines := newBoundedLines(in, max, func(id json.RawMessage, size int) {
		logger.Printf("a message of %d bytes was refused (at most %d)", size, max)
		if id != nil {
			_, _ = w.own(refusal(id, size, max))
		}
	})
	// Requests other than tools/call: at most MaxStdioRequests in
	// progress, each past them answered "server busy" (stdio_gate.go).
	lines.admit = func(line []byte) bool {
		ok, answer := gate.admit(line)
		if !ok {
			_, _ = w.own(answer)
		}
		return ok
	}
	if testHookStdioGate != nil {
		testHookStdioGate(gate)
	}
	err := std.Listen(ctx, lines, w)
	s.Close()
	if err == io.EOF || ctx.Err() != nil {
		return nil
	}
	return err
}
