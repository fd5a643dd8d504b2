package servers

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"demiurge.dev/host/mcp/testservers/internal/serve"
)

// ChangingList offers a different tool on each start: it counts
// its starts in $COUNTER_AT and offers v<N>.
func ChangingList() {
	n := 1
	if f := os.Getenv("COUNTER_AT"); f != "" {
		if b, err := os.ReadFile(f); err == nil {
			if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				n = v + 1
			}
		}
		_ = os.WriteFile(f, []byte(strconv.Itoa(n)), 0o644)
	}
	s := serve.New("changing_list")
	serve.Raw(s, fmt.Sprintf("v%d", n), "", `{"type":"object"}`, serve.Text(strconv.Itoa(n)))
	serve.Run(s, nil)
}
