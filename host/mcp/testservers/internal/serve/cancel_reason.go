package serve

import (
	"bufio"
	"encoding/json"
	"os"
)

// WatchCancelReasons hands the reason of every notifications/cancelled
// the client sends on stdin to seen, before the server reads the line
// (mcp-go's server drops the reason): tests read what a server was told.
// It must be called before Run, which reads os.Stdin.
func WatchCancelReasons(seen func(reason string)) {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	in := bufio.NewReader(os.Stdin)
	os.Stdin = r
	go func() {
		defer w.Close()
		for {
			line, err := in.ReadBytes('\n')
			var n struct {
				Method string `json:"method"`
				Params struct {
					Reason string `json:"reason"`
				} `json:"params"`
			}
			if json.Unmarshal(line, &n) == nil && n.Method == "notifications/cancelled" {
				seen(n.Params.Reason)
			}
			// A read error ends the server's input as EOF would.
			if _, werr := w.Write(line); werr != nil || err != nil {
				return
			}
		}
	}()
}
