package mcpserve

// The figures of stop 54's flood attacks on the HTTP endpoint, with a real
// client on loopback: what 2,000 sessions opened and ended leave behind,
// and what 1,000 quick MCP tasks do. Run with DEMIURGE_MCPSERVE_FIGURES=1
// and -v; they print, and assert nothing.

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

func heapNow() (uint64, int) {
	for range 3 {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, runtime.NumGoroutine()
}

func TestFigureSessionsOpenedAndEnded(t *testing.T) {
	if os.Getenv("DEMIURGE_MCPSERVE_FIGURES") == "" {
		t.Skip()
	}
	s := serve(t, serveOpts{})
	// warm
	for range 20 {
		r := initialized(t, s)
		endSession(t, s, r.session)
	}
	h0, g0 := heapNow()
	n := 2000
	for range n {
		r := initialized(t, s)
		endSession(t, s, r.session)
	}
	h1, g1 := heapNow()
	fmt.Printf("SESSIONS %d init+DELETE: heap %d -> %d (+%d B, %.0f B/session), goroutines %d -> %d\n", n, h0, h1, int64(h1)-int64(h0), float64(int64(h1)-int64(h0))/float64(n), g0, g1)
}

func TestFigureQuickTasks(t *testing.T) {
	if os.Getenv("DEMIURGE_MCPSERVE_FIGURES") == "" {
		t.Skip()
	}
	s := serve(t, serveOpts{})
	c := connect(t, s, mcp.ProtocolVersion20251125, nil)
	h0, g0 := heapNow()
	n, made, refused := 1000, 0, 0
	for made < n {
		resp := sendTask(t, c, "read_file", map[string]any{"path": "missing-" + strings.Repeat("x", 10)}, nil)
		if resp.Error != nil {
			refused++
			if refused == 1 {
				fmt.Println("first refusal:", resp.Error.Message)
			}
			if !strings.Contains(resp.Error.Message, "max concurrent") {
				fmt.Println("refused:", resp.Error.Message)
				break
			}
			time.Sleep(5 * time.Millisecond)
			continue
		}
		made++
	}
	time.Sleep(time.Second)
	h1, g1 := heapNow()
	fmt.Printf("TASKS %d created of %d (%d refused): heap %d -> %d (+%d B, %.0f B/task), goroutines %d -> %d, tasks/list %d\n", made, n, refused, h0, h1, int64(h1)-int64(h0), float64(int64(h1)-int64(h0))/float64(max(made, 1)), g0, g1, len(listTasks(t, c)))
}
