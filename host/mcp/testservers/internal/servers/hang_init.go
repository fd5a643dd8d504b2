package servers

import (
	"io"
	"os"
)

// HangInit reads its stdin and never answers: it hangs in initialize, and
// stays up after stdin closes, so only a kill ends it. With $RECORD_AT
// set it writes what it was sent there.
func HangInit() {
	var w io.Writer = io.Discard
	if f := os.Getenv("RECORD_AT"); f != "" {
		if out, err := os.Create(f); err == nil {
			w = out
		}
	}
	_, _ = io.Copy(w, os.Stdin)
	select {}
}
