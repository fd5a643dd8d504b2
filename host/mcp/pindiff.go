package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/pmezard/go-difflib/difflib"
)

// definitionDiff is a unified diff of a tool's pinned definition (nil for
// a new tool) and the one the server now offers, each written as indented
// JSON with sorted keys, so that only what changed shows.
func definitionDiff(tool string, pinned *Definition, offered Definition) string {
	var a []string
	from := "pinned (none: a new tool)"
	if pinned != nil {
		a = difflib.SplitLines(prettyDefinition(*pinned))
		from = "pinned"
	}
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: a, B: difflib.SplitLines(prettyDefinition(offered)),
		FromFile: ShownToolName(tool) + " " + from, ToFile: ShownToolName(tool) + " offered now", Context: 3,
	})
	if err != nil {
		return err.Error()
	}
	return diff
}

// prettyDefinition writes a definition as indented JSON, object keys
// sorted (a map's), numbers as the server wrote them, and every character
// a terminal would act on escaped (shown.go): the diff is what the
// operator reads before accepting the definition.
func prettyDefinition(d Definition) string {
	m := map[string]any{"name": d.Name, "description": d.Description}
	if s := genericJSON(d.InputSchema); s != nil {
		m["inputSchema"] = s
	}
	if a := genericJSON(d.Annotations); a != nil {
		m["annotations"] = a
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(m)
	return inertJSON(b.String())
}

// genericJSON decodes raw JSON for canonical re-encoding (encoding/json
// sorts a map's keys); nil for none, the text itself when it is not JSON.
func genericJSON(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	return v
}
