package frontview

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/hostv1"
)

// MCPOutputError is PipeMCP's failure to write the host's bytes to the
// client.
type MCPOutputError struct{ Err error }

func (e *MCPOutputError) Error() string { return "mcp serve: standard output: " + e.Err.Error() }
func (e *MCPOutputError) Unwrap() error { return e.Err }

// PipeMCP is `mcp serve` (stdio) through the host, for the full CLI and
// the small front end alike: it sends first on stream (the host's
// ServeMCP, opened with ctx), then pipes the client's bytes from in to
// the host and the host's to out, its notes as lines on errw. It
// returns nil when the session ended (the host closed the stream) or ctx
// was cancelled (SIGINT/SIGTERM ends the serving quietly); an
// *MCPOutputError when out fails; else gone(the stream's error), the
// host went away.
func PipeMCP(ctx context.Context, stream grpc.BidiStreamingClient[hostv1.MCPChunk, hostv1.MCPChunk], first *hostv1.MCPChunk,
	in io.Reader, out, errw io.Writer, gone func(error) error) error {
	if err := stream.Send(first); err != nil {
		return gone(err)
	}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				if stream.Send(&hostv1.MCPChunk{Data: append([]byte(nil), buf[:n]...)}) != nil {
					return
				}
			}
			if err != nil {
				stream.CloseSend() // the client's input ended: the host ends its session
				return
			}
		}
	}()
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil && status.Code(err) == codes.Canceled {
				return nil // SIGINT/SIGTERM
			}
			return gone(err)
		}
		if len(m.Data) > 0 {
			if _, err := out.Write(m.Data); err != nil {
				return &MCPOutputError{err}
			}
		}
		if m.Stderr != "" {
			fmt.Fprintln(errw, m.Stderr)
		}
	}
}
