package core

import (
	"fmt"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/shared/textclip"
)

// unknownMsg says that name is not one of valid, suggesting the nearest
// and listing them all after label ("valid keys", "known toolsets").
func unknownMsg(what, name, label string, valid []string) string {
	msg := fmt.Sprintf("unknown %s %q", what, clip(name))
	if n := catalog.Suggest(name, valid); n != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", n)
	}
	return msg + "; " + label + ": " + strings.Join(valid, ", ")
}

// clipLen bounds the user text quoted in one message: a megabyte-long key
// should not become a megabyte-long error.
const clipLen = 80

// clip shortens s to clipLen bytes, on a rune boundary, marking the cut.
func clip(s string) string { return textclip.Clip(s, clipLen) }
