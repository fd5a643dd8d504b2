package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"demiurge.dev/catalog"
)

// maxToolNameLen is the providers' bound on a tool name
// (^[a-zA-Z0-9_-]{1,64}$).
const maxToolNameLen = 64

// stripMarks decomposes a name (NFKD) and drops its combining marks, so
// "café" becomes "cafe" rather than "caf_". A new chain each time: a
// chain keeps state between its transformers and is not safe for the
// servers that connect at once.
func stripMarks() transform.Transformer {
	return transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)))
}

// ToolName is the model-visible name of a server's tool, built by one
// documented rule (README, "MCP tool names") that every provider accepts:
//
//  1. the tool's name is decomposed (NFKD) and its combining marks
//     dropped: "café" → "cafe";
//  2. every character outside [A-Za-z0-9_-] becomes '_': "files/read.v2"
//     → "files_read_v2", "has space" → "has_space";
//  3. the name is server + "__" + that;
//  4. a name past 64 characters keeps its first 55 and ends with '_' and
//     the first 8 hex digits of the sha256 of the server's own tool name.
//
// The same server name always gives the same model name. Two tools that
// end up with one name are refused by selectTools, both named.
func ToolName(server, tool string) (string, error) {
	if tool == "" {
		return "", fmt.Errorf("MCP server %s offers a tool with an empty name", server)
	}
	folded, _, err := transform.String(stripMarks(), tool)
	if err != nil {
		folded = tool
	}
	var b strings.Builder
	b.WriteString(server)
	b.WriteString(Separator)
	for _, r := range folded {
		if r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) > maxToolNameLen {
		sum := sha256.Sum256([]byte(tool))
		name = name[:maxToolNameLen-9] + "_" + hex.EncodeToString(sum[:4])
	}
	if err := catalog.ValidToolName(name); err != nil {
		// Only an invalid server id gets here; the core's loader refuses those.
		return "", fmt.Errorf("MCP server %s tool %q cannot be offered as %q: %v", server, clip(tool), clip(name), err)
	}
	return name, nil
}

// MayOffer tells whether name can be a tool of server: it starts with
// server + "__", or is cut to 64 characters (rule 4) inside that prefix.
// The operator's call of one tool connects only such servers.
func MayOffer(server, name string) bool {
	prefix := server + Separator
	if strings.HasPrefix(name, prefix) {
		return true
	}
	cut := maxToolNameLen - 9
	return len(name) == maxToolNameLen && len(prefix) > cut && strings.HasPrefix(prefix, name[:cut])
}
