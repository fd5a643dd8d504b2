package catalog

import "strings"

// Detail renders one entry as the full display does, for "tools show".
func (e *Entry) Detail() string {
	var b strings.Builder
	writeFullEntry(&b, e)
	return b.String()
}
