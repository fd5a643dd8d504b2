package servers

import (
	"io"
	"os"
)

// HangInit reads its stdin and never answers: it hangs in
// initialize, and stays up after stdin closes, so only a kill ends it.
func HangInit() {
	_, _ = io.Copy(io.Discard, os.Stdin)
	select {}
}
