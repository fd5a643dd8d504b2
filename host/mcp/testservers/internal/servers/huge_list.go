package servers

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/mcp/testservers/internal/serve"
)

// HugeList offers HUGE_COUNT (default 3000) tools, 100 per page, each
// description padded to HUGE_DESC bytes when that is set.
func HugeList() {
	n := 3000
	if v, err := strconv.Atoi(os.Getenv("HUGE_COUNT")); err == nil {
		n = v
	}
	pad, _ := strconv.Atoi(os.Getenv("HUGE_DESC"))
	s := serve.New("huge_list", server.WithPaginationLimit(100))
	for i := range n {
		desc := fmt.Sprintf("Tool %d.", i)
		if len(desc) < pad {
			desc += strings.Repeat("x", pad-len(desc))
		}
		serve.Raw(s, fmt.Sprintf("t%04d", i), desc, `{"type":"object","properties":{"x":{"type":"string"}}}`, serve.Text(fmt.Sprint(i)))
	}
	serve.Run(s, nil)
}
