package servers

import (
	"fmt"
	"os"
	"strconv"

	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/mcp/testservers/internal/serve"
)

// HugeList offers HUGE_COUNT (default 3000) tools, 100 per page.
func HugeList() {
	n := 3000
	if v, err := strconv.Atoi(os.Getenv("HUGE_COUNT")); err == nil {
		n = v
	}
	s := serve.New("huge_list", server.WithPaginationLimit(100))
	for i := range n {
		serve.Raw(s, fmt.Sprintf("t%04d", i), fmt.Sprintf("Tool %d.", i), `{"type":"object","properties":{"x":{"type":"string"}}}`, serve.Text(fmt.Sprint(i)))
	}
	serve.Run(s, nil)
}
