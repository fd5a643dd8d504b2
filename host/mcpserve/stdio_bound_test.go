package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/toolhost"
)

// stdioServed is a real host served over stdio pipes; send writes a line,
// next reads the next message the server wrote.
type stdioServed struct {
	in    *io.PipeWriter
	out   *bufio.Reader
	errs  *bytes.Buffer
	lines chan map[string]any
}

func serveStdio(t *testing.T, max int) *stdioServed {
	t.Helper()
	h, err := toolhost.Open(toolhost.Options{Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Approver: approval.DenyAll{}, Principal: "local:tester"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := New(ctx, Options{Host: h, Refresh: -1, MaxRequestBytes: max})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdioServed{in: inW, errs: &bytes.Buffer{}, lines: make(chan map[string]any, 16)}
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, inR, outW, s.errs); outW.Close() }()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]any{"unparsed": sc.Text()}
			}
			s.lines <- m
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("the stdio server did not end within 20s")
		}
		h.Close()
	})
	return s
}

func (s *stdioServed) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (s *stdioServed) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case m, ok := <-s.lines:
		if !ok {
			t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(20 * time.Second):
		t.Fatal("no message from the server within 20s")
	}
	return nil
}

// An oversized message over stdio is refused with an error carrying its
// id, wherever in the line the id is, and the server goes on serving the
// same client.
func TestStdioOversizedRequestRefused(t *testing.T) {
	const max = 64 << 10
	s := serveStdio(t, max)
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := s.next(t); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	big := strings.Repeat("x", 4*max)
	// The TypeScript SDK writes the id last, after the params.
	s.send(t, fmt.Sprintf(`{"method":"tools/call","params":{"name":"read_file","arguments":{"path":%q}},"jsonrpc":"2.0","id":"late-id"}`, big))
	m := s.next(t)
	e, _ := m["error"].(map[string]any)
	if m["id"] != "late-id" || e == nil || e["code"] != float64(-32600) || !strings.Contains(fmt.Sprint(e["message"]), "at most 65536 bytes") {
		t.Fatalf("oversized request: want an invalid-request error for id late-id, got %v", m)
	}
	s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":%q}}}`, big))
	if m := s.next(t); m["id"] != float64(7) || m["error"] == nil {
		t.Fatalf("oversized request with the id first: %v", m)
	}
	// A notification that is too big has no one to answer; it is dropped.
	s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":%q}}`, big))

	s.send(t, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	m = s.next(t)
	if m["id"] != float64(8) || m["result"] == nil {
		t.Fatalf("tools/list after the refusals: want its result, got %v", m)
	}
	if !strings.Contains(s.errs.String(), "refused") {
		t.Errorf("the refusals are not logged: %q", s.errs.String())
	}
}

// idScanner finds the top-level id of objects written in any member order
// and split at any byte, and nothing else.
func TestIDScanner(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":12,"method":"x"}`, `12`},
		{`{"params":{"id":"inner","a":[{"id":3}]},"id":"outer"}`, `"outer"`},
		{`{"method":"x", "id" : "a\"b" }`, `"a\"b"`},
		{`{"idx":1,"xid":2,"id":-3.5e2}`, `-3.5e2`},
		{`{"params":{"s":"\"id\":9"},"id":4}`, `4`},
		{`{"id":null}`, ``},
		{`{"id":{"a":1}}`, ``},
		{`{"method":"notifications/x"}`, ``},
		{`[{"id":1}]`, ``},
	} {
		for split := 0; split <= len(tc.in); split++ {
			var s idScanner
			s.feed([]byte(tc.in[:split]))
			s.feed([]byte(tc.in[split:]))
			if string(s.id) != tc.want {
				t.Fatalf("%s split at %d: id %q, want %q", tc.in, split, s.id, tc.want)
			}
		}
	}
}

// FuzzIDScanner: for any JSON object, the scanner's id is the object's
// own string or number id, or nothing when it has none.
func FuzzIDScanner(f *testing.F) {
	for _, s := range []string{`{"id":1}`, `{"a":{"id":2},"id":"x"}`, `{"id":"\u0069"}`, `{"a":"}","id":5}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &obj) != nil {
			return
		}
		var s idScanner
		s.feed([]byte(in))
		if s.id == nil {
			return // not finding an id only costs the client its answer
		}
		var got, want any
		if json.Unmarshal(s.id, &got) != nil || json.Unmarshal(obj["id"], &want) != nil || got != want {
			t.Fatalf("%s: scanner found id %s, the object's is %s", in, s.id, obj["id"])
		}
	})
}
