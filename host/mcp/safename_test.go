package mcp

import (
	"sync"
	"testing"
)

// ToolName is called by every server's connect at once: the same names
// come out of many goroutines as out of one.
func TestToolNameConcurrent(t *testing.T) {
	cases := map[string]string{"café/read": "docs__cafe_read", "Ünïcödé tool": "docs__Unicode_tool", "plain": "docs__plain"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 2000 {
				for in, want := range cases {
					if got, err := ToolName("docs", in); err != nil || got != want {
						t.Errorf("ToolName(docs, %q) = %q, %v; want %q", in, got, err, want)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
