package catalog

import (
	"encoding/json"
	"fmt"
	"io"
)

// ListOptions are what `demiurge tools list` renders: provider
// definitions, the entries' JSON summaries, or the display in a mode.
type ListOptions struct {
	Mode     DisplayMode
	Provider Provider // set: provider definitions, as JSON
	JSON     bool     // entries' summaries, as JSON
}

// WriteList renders the catalog as `demiurge tools list` prints it. Both
// the full host and the tools-list launcher call it, so that their output
// cannot drift apart.
func (c *Catalog) WriteList(w io.Writer, o ListOptions) error {
	switch {
	case o.Provider != "":
		defs, err := c.Definitions(o.Provider)
		if err != nil {
			return err
		}
		return writeIndentedJSON(w, defs)
	case o.JSON:
		out := []any{}
		for _, e := range c.sortedByName() {
			out = append(out, e.Summary())
		}
		// The operator's listing shows what the session cannot call, and
		// why; the model's (tools_list, provider definitions) does not.
		for _, u := range c.unavailable {
			out = append(out, map[string]any{"name": u.Tool, "provenance": u.Provenance,
				"unavailable": true, "missing_capability": u.Missing})
		}
		for _, u := range unbuilt {
			out = append(out, map[string]any{"name": u.Tool, "toolset": u.Toolset, "not_built": true})
		}
		return writeIndentedJSON(w, out)
	}
	if _, err := io.WriteString(w, c.Display(o.Mode)); err != nil {
		return err
	}
	// Quiet is names only, one a line, for scripts; the other modes say
	// what the catalog lacks, so that a missing tool is never a guess.
	if o.Mode != DisplayQuiet {
		_, err := io.WriteString(w, unbuiltLine())
		return err
	}
	return nil
}

// WriteNotes writes the host's assembly warnings and the catalog's
// diagnostics, one a line, as the tools commands print them on stderr.
func (c *Catalog) WriteNotes(w io.Writer, warnings []string) {
	for _, msg := range warnings {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
	for _, d := range c.Diagnostics() {
		fmt.Fprintf(w, "%s: %s\n", d.Level, d.Message)
	}
}

// writeIndentedJSON is the CLI's JSON: two-space indent, HTML characters
// left as they are, a final newline.
func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
