package servers

import (
	"io"

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
func GarbageStdout() {
	s := serve.New("garbage_stdout")
	serve.Raw(s, "still_works", "", `{"type":"object"}`, serve.Text("fine"))
	serve.Run(s, func(w io.Writer) io.Writer { return garbage{w} })
}
