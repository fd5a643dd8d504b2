package fsops

import (
	"context"
	"testing"
)

// TestReadDefaultsToTwoThousandLines pins the figures read_file's
// description gives the model: 2000 lines by default, at most 10000 (a
// larger limit is refused by the schema before the plugin; here it is cut
// to the maximum), and the offset that continues.
func TestReadDefaultsToTwoThousandLines(t *testing.T) {
	fx := newFixture(t)
	fx.write(t, "n.txt", numberedLines(12000))
	ctx := context.Background()
	r, err := ReadFile(ctx, fx.ws, ReadParams{Path: "n.txt"})
	if err != nil || r.LinesReturned != 2000 || r.NextOffset != 2001 || !r.Truncated {
		t.Fatalf("default window: %d lines, next %d, %v", r.LinesReturned, r.NextOffset, err)
	}
	lim := defaultReadLimits
	lim.charBudget = 1 << 30 // so that only the line bound stops it
	r, err = readFile(ctx, fx.ws, ReadParams{Path: "n.txt", Limit: 50000}, lim)
	if err != nil || r.LinesReturned != 10000 || r.NextOffset != 10001 {
		t.Fatalf("limit 50000: %d lines, next %d, %v", r.LinesReturned, r.NextOffset, err)
	}
}
