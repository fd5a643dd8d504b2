package servers

import (
	"bytes"
	"io"
	"os"

	"demiurge.dev/host/mcp/testservers/internal/serve"
)

type garbage struct{ w io.Writer }

func (g garbage) Write(p []byte) (int, error) {
	if _, err := g.w.Write([]byte("starting up... ok\n\x00\xff\xfe not json\n{\"half\":\n[1,2,3]\n")); err != nil {
		return 0, err
	}
	return g.w.Write(p)
}

// GarbageStdout writes lines that are not JSON-RPC (text, binary,
// half objects) before every message it sends, and otherwise works.
//
// With HUGE_LINE=1 it first writes 20 MiB without a newline.
func GarbageStdout() {
	if os.Getenv("HUGE_LINE") == "1" {
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 20 {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return
			}
		}
	}
	s := serve.New("garbage_stdout")
	serve.Raw(s, "still_works", "", `{"type":"object"}`, serve.Text("fine"))
	serve.Run(s, func(w io.Writer) io.Writer { return garbage{w} })
}
