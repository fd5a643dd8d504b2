package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"demiurge.dev/shared/hiddentext"
)

// A tool's name, description and input schema go to the model as the
// server wrote them, outside the untrusted-output envelope and its
// screening, and are pinned on first connect without review. Two kinds
// of character there make the model read what the operator cannot:
// Unicode tag characters (U+E0000–U+E007F), which spell ASCII no terminal
// shows ("ASCII smuggling"), and the bidi embedding, override and isolate
// controls, which make a terminal show other text than the model reads.
// Neither has a place in a tool's definition; a tool holding one is left
// out (selectTools). Zero-width characters are not refused: an emoji's
// joiner is one.

// invisibleIn names the first hidden character of a tool's definition:
// where it is and which it is; "" when there is none. The schema's
// strings and keys are read decoded, so JSON escapes hide nothing.
func invisibleIn(t rawTool) string {
	if r, ok := hiddenRune(t.Name); ok {
		return fmt.Sprintf("its name holds U+%04X", r)
	}
	if r, ok := hiddenRune(t.Description); ok {
		return fmt.Sprintf("its description holds U+%04X", r)
	}
	if len(t.InputSchema) > 0 && strings.IndexByte(string(t.InputSchema), '\\') < 0 {
		if r, ok := hiddenRune(string(t.InputSchema)); ok {
			return fmt.Sprintf("its input schema holds U+%04X", r)
		}
		return ""
	}
	var doc any
	if json.Unmarshal(t.InputSchema, &doc) != nil {
		return "" // not JSON: CompileSchema refuses it
	}
	if r, ok := hiddenInJSON(doc); ok {
		return fmt.Sprintf("its input schema holds U+%04X", r)
	}
	return ""
}

// hiddenRune is the first hidden character of s (hiddentext).
func hiddenRune(s string) (rune, bool) { return hiddentext.First(s) }

func hiddenInJSON(v any) (rune, bool) {
	switch v := v.(type) {
	case string:
		return hiddenRune(v)
	case []any:
		for _, e := range v {
			if r, ok := hiddenInJSON(e); ok {
				return r, true
			}
		}
	case map[string]any:
		for k, e := range v {
			if r, ok := hiddenRune(k); ok {
				return r, true
			}
			if r, ok := hiddenInJSON(e); ok {
				return r, true
			}
		}
	}
	return 0, false
}
