package mcp

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/core"
	sredact "demiurge.dev/shared/redact"
)

// TestContentText pins how a result's content becomes the host's text:
// text as it is, other kinds named by kind and size, one item a line.
func TestContentText(t *testing.T) {
	cases := []struct {
		name    string
		content []mcp.Content
		want    string
	}{
		{"none", nil, ""},
		{"one text", []mcp.Content{mcp.TextContent{Type: "text", Text: "hello"}}, "hello"},
		{"one empty text", []mcp.Content{mcp.TextContent{Type: "text"}}, ""},
		{"two texts", []mcp.Content{mcp.TextContent{Text: "a"}, mcp.TextContent{Text: "b"}}, "a\nb"},
		{"image", []mcp.Content{mcp.ImageContent{MIMEType: "image/png", Data: "AAAA"}}, "[image image/png, 4 base64 bytes]"},
		{"audio after text", []mcp.Content{mcp.TextContent{Text: "x"}, mcp.AudioContent{MIMEType: "audio/wav", Data: "AA"}}, "x\n[audio audio/wav, 2 base64 bytes]"},
		{"link", []mcp.Content{mcp.ResourceLink{URI: "file:///a"}}, "[resource link file:///a]"},
		{"embedded text", []mcp.Content{mcp.EmbeddedResource{Resource: mcp.TextResourceContents{Text: "inner"}}}, "inner"},
		{"embedded blob", []mcp.Content{mcp.EmbeddedResource{Resource: mcp.BlobResourceContents{Blob: "AA"}}}, "[embedded resource]"},
		// A pointer is not a kind the switch knows, alone or not.
		{"pointer text", []mcp.Content{&mcp.TextContent{Text: "p"}}, "[unsupported content]"},
	}
	for _, c := range cases {
		if got := contentText(c.content); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestContentTextOneTextNotCopied: the common answer, one text item, is
// handed on as the very string mcp-go decoded (a large result is not
// copied once more).
func TestContentTextOneTextNotCopied(t *testing.T) {
	text := strings.Repeat("x", 1<<20)
	got := contentText([]mcp.Content{mcp.TextContent{Text: text}})
	if unsafe.StringData(got) != unsafe.StringData(text) {
		t.Fatal("the single text item was copied")
	}
}

// TestResultRedactsOneText: the single-text path still goes through the
// declaration's secrets, as the joined path does.
func TestResultRedactsOneText(t *testing.T) {
	a := &Adapter{conn: &conn{plan: &plan{secrets: knownSecrets(core.MCPServer{
		Env: []core.KV{{Key: "TOKEN", Value: "s3cr3t-value-42"}},
	})}}}
	for _, content := range [][]mcp.Content{
		{mcp.TextContent{Text: "key s3cr3t-value-42 echoed"}},
		{mcp.TextContent{Text: "key s3cr3t-value-42"}, mcp.TextContent{Text: "echoed"}},
	} {
		out := a.result(answerOf(&mcp.CallToolResult{Content: content}))
		if strings.Contains(out.Content, "s3cr3t") || !strings.Contains(out.Content, sredact.Marker("env:TOKEN")) {
			t.Errorf("%q", out.Content)
		}
	}
}
