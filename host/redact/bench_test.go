package redact

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkMakeSmall is the redaction share of an ordinary call's overhead:
// a read_file of a small source file.
func BenchmarkMakeSmall(b *testing.B) {
	args := map[string]any{"path": "internal/server/handler.go", "offset": 1, "limit": 200}
	content := strings.Repeat("func handle(w http.ResponseWriter, r *http.Request) { w.Write(nil) }\n", 30)
	raw := Raw{Tool: "read_file", CallID: "call_1", Args: args, Content: content}
	secrets := Discover(args, nil)
	b.ReportAllocs()
	for b.Loop() {
		if v := Make(raw, secrets); v.Failed {
			b.Fatal("failed")
		}
	}
}

// BenchmarkMakeLarge: 1 MiB of output with a bound secret and command args.
func BenchmarkMakeLarge(b *testing.B) {
	args := map[string]any{"command": "deploy --token tk-123456789 https://u:pw-12345@h/x"}
	content := strings.Repeat("2026-01-01 INFO deploying artifact build-42 to region eu-west-1 ok\n", 16000)
	raw := Raw{Tool: "terminal", CallID: "call_1", Args: args, Content: content}
	secrets := Discover(args, map[string]string{"X": "bound-secret-value"})
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if v := Make(raw, secrets); v.Failed {
			b.Fatal("failed")
		}
	}
}

// BenchmarkMakeReadFile is Make as dispatch runs it for the dispatch
// benchmark's call: a read_file of a three-line file, with the plugin's
// structured result decoded from JSON.
func BenchmarkMakeReadFile(b *testing.B) {
	args := map[string]any{"path": "small.txt"}
	content := "     1\tone\n     2\ttwo\n     3\tthree\n[small.txt: lines 1-3 of 3; 14 of 14 bytes scanned]"
	structured := map[string]any{
		"path": "small.txt", "content": "one\ntwo\nthree\n", "start_line": 1.0, "end_line": 3.0,
		"lines_returned": 3.0, "total_lines": 3.0, "total_lines_known": true, "bytes_scanned": 14.0,
		"file_size": 14.0, "truncated": false,
	}
	raw := Raw{Tool: "read_file", CallID: "bench", Args: args, Content: content, Structured: structured}
	b.ReportAllocs()
	for b.Loop() {
		if v := Make(raw, nil); v.Failed {
			b.Fatal("failed")
		}
	}
}

// BenchmarkMakeEcho is Make as dispatch runs it for the MCP call-overhead
// benchmark's call: echo of a short text, no structured result.
func BenchmarkMakeEcho(b *testing.B) {
	raw := Raw{Tool: "echo__echo", CallID: "bench", Args: map[string]any{"text": "hello"}, Content: "hello"}
	b.ReportAllocs()
	for b.Loop() {
		if v := Make(raw, nil); v.Failed {
			b.Fatal("failed")
		}
	}
}

// BenchmarkAnchorScan: the token table's anchor scan over 64 KiB of
// ordinary English and code, where "se", "be" and "tw" start many words
// and each such pair is compared with a case-insensitive anchor.
func BenchmarkAnchorScan(b *testing.B) {
	line := "The server sends these settings before the second session; be sure to set Secrecy_Name = twice. func (s *Server) Serve() error { return s.base.Between(b) }\n"
	text := strings.Repeat(line, 64<<10/len(line))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, any := candidates(text); any {
			b.Fatal("an anchor in plain text")
		}
	}
}

// proseMiB is this repository's architecture document repeated to 1 MiB:
// prose that says "secret" and "bearer" (two case-insensitive token
// entries' anchors) on a few lines and holds no credential.
func proseMiB(b *testing.B) string {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat(string(doc), 1<<20/len(doc)+1)[:1<<20]
	if found, _ := candidates(text); !found[2] || !found[len(tokenTable)-1] {
		b.Fatal("the prose lacks the secret and bearer anchors")
	}
	return text
}

// BenchmarkTokensProse: the token pass over 1 MiB of prose whose anchors
// send two patterns to work; the text has no hit, so it comes back as is.
func BenchmarkTokensProse(b *testing.B) {
	text := proseMiB(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if applyTokens(text) != text {
			b.Fatal("prose redacted")
		}
	}
}

// BenchmarkTokensPlain: the token pass over 1 MiB without an anchor (the
// anchor scan alone).
func BenchmarkTokensPlain(b *testing.B) {
	text := strings.Repeat("2026-01-01 INFO deploying artifact build-42 to region eu-west-1 ok\n", 1<<20/67+1)[:1<<20]
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if applyTokens(text) != text {
			b.Fatal("plain text redacted")
		}
	}
}

// BenchmarkTokensDense: the token pass over 1 MiB where anchors are dense
// and nothing matches: "under" holds 2,048 anchors (one "secret" every 512
// bytes; the scan records them all), "over" three anchors every 14 bytes,
// past maxAnchorHits (the scan stops recording and the lines are searched).
// Every line holds an anchor, so either way the pattern runs on the whole
// text: that, not the scan, is most of the time.
func BenchmarkTokensDense(b *testing.B) {
	for _, c := range []struct{ name, line string }{
		{"under", "the secret" + strings.Repeat(" lorem ipsum", 41) + " 12345678\n"},
		{"over", "SK sk- npm_ x\n"},
	} {
		text := strings.Repeat(c.line, 1<<20/len(c.line)+1)[:1<<20]
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if applyTokens(text) != text {
					b.Fatal("redacted")
				}
			}
		})
	}
}
