package mcpserve

import (
	"strings"
	"testing"
)

// BenchmarkAnswersAtOnce is the look a POST with a session id gets before
// mcp-go decodes it: an elicitation's answer, and a tools/call request
// with a small and a 256 KiB argument.
func BenchmarkAnswersAtOnce(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"answer", `{"jsonrpc":"2.0","id":3,"result":{"action":"accept","content":{"decision":"once"}}}`},
		{"call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.txt","content":"one\ntwo\n"}}}`},
		{"call256KiB", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.txt","content":"` + strings.Repeat("x", 256<<10) + `"}}}`},
	} {
		body := []byte(c.body)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				answersAtOnce(body)
			}
		})
	}
}
