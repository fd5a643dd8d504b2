package terminal

import (
	"sync"
	"testing"
	"time"
)

// 200 timeouts of a tree with grandchildren, one of which ignores TERM,
// all at once: every group is gone afterwards.
func TestManyTimeoutsLeaveNoProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 200 process trees")
	}
	const n = 200
	rn := quickRunner()
	results := make([]*Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, _ := run(t, rn, Request{Command: treeCommand, Timeout: 500 * time.Millisecond})
			results[i] = res
		})
	}
	wg.Wait()
	for i, res := range results {
		if res == nil {
			t.Fatalf("call %d did not return", i)
		}
		if res.ExitReason != ReasonTimeout {
			t.Errorf("call %d: reason %s, want timeout", i, res.ExitReason)
		}
		if left := pidsInGroup(t, res.Spawn.PGID); len(left) > 0 {
			t.Errorf("call %d: group %d left %v", i, res.Spawn.PGID, left)
		}
	}
	if rn.Live() != 0 {
		t.Fatalf("%d trees still registered", rn.Live())
	}
}
