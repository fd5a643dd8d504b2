package hostd

import (
	"bytes"
	"io"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/mcpserve"
	"demiurge.dev/shared/hostv1"
)

// ServeMCP serves one `demiurge mcp serve` stdio client inside the host:
// the front end pipes its standard input and output through this stream,
// and the host serves them as the in-process command would, with the
// client's sessions under the principal the first message names.
// Approvals go to that client (MCP elicitation) and to no other.
func (s *Server) ServeMCP(stream hostv1.Host_ServeMCPServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	srv, err := mcpserve.New(stream.Context(), mcpserve.Options{
		Host: s.h, Version: s.opts.Version, Principal: s.principal(first.Principal),
		MaxRequestBytes: int(min(first.MaxRequestBytes, hostv1.MaxRequestBytes)), Approve: append([]string{}, first.Approve...),
	})
	if err != nil {
		return status.Errorf(codes.Internal, "mcp serve: %v", err)
	}
	in, inW := io.Pipe()
	go func() {
		if len(first.Data) > 0 {
			if _, err := inW.Write(first.Data); err != nil {
				return
			}
		}
		for {
			m, err := stream.Recv()
			if err != nil {
				inW.Close() // the client's input ended (or the front end went away)
				return
			}
			if _, err := inW.Write(m.Data); err != nil {
				return
			}
		}
	}()
	var sendMu sync.Mutex
	send := func(m *hostv1.MCPChunk) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return stream.Send(m)
	}
	out := writerFunc(func(p []byte) (int, error) {
		if err := send(&hostv1.MCPChunk{Data: append([]byte(nil), p...)}); err != nil {
			return 0, err
		}
		return len(p), nil
	})
	errLog := &lineSender{send: func(line string) { _ = send(&hostv1.MCPChunk{Stderr: line}) }}
	err = srv.ServeStdio(stream.Context(), in, out, errLog)
	in.Close()
	if err != nil {
		return status.Errorf(codes.Unknown, "mcp serve: %v", err)
	}
	return nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// lineSender passes the served client's log lines to the front end's
// standard error, one message per line.
type lineSender struct {
	mu   sync.Mutex
	buf  []byte
	send func(string)
}

func (l *lineSender) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.send(string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
}
