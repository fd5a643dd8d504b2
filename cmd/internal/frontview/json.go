// Package frontview is what a front end prints of the host's answers,
// shared by the full CLI (bin/demiurge-host) and the small front end
// (bin/demiurge-front), so that both print the same bytes.
package frontview

import (
	"encoding/json"
	"io"
)

// WriteJSON is every command's JSON style: snake_case keys, two-space
// indent, a list printed as [] rather than null, no HTML escaping.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
