package mcp

import (
	"regexp"
	"strings"
)

// envelope matches the untrusted-output envelope dispatch puts around an
// MCP result's model view (host/untrusted); these tests check what the
// server said, which is the envelope's content.
var envelope = regexp.MustCompile(`(?s)\A<untrusted-data origin="[^"]*" boundary="([A-Z0-9]+)" screening="[^"]*">\n(.*)\n</untrusted-data boundary="([A-Z0-9]+)">\z`)

// unwrapped is the content of a wrapped model view, or the view itself
// when it is not wrapped (a failed call's message).
func unwrapped(model string) string {
	m := envelope.FindStringSubmatch(model)
	if m == nil || m[1] != m[3] {
		if strings.HasPrefix(model, "<untrusted-data") {
			return "malformed envelope: " + model
		}
		return model
	}
	return m[2]
}
