package firststage

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// TestFirstStageWaitsForItsNotify: the second stage starts while
// signal.Notify is still under way, and the first stage goes on (to wait
// for it, and to pass signals on) only once Notify is done, however late.
// synctest.Wait returns once every goroutine of the bubble is blocked, so
// "not returned while notify is held" is checked without a timer.
func TestFirstStageWaitsForItsNotify(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var notified, started atomic.Bool
		notify := func() {
			<-release
			notified.Store(true)
		}
		done := make(chan struct{})
		var pid int
		go func() {
			defer close(done)
			var err error
			pid, err = startBesideNotify(notify, func() (int, error) {
				started.Store(true)
				return 42, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
		synctest.Wait()
		select {
		case <-done:
			t.Error("startBesideNotify returned before signal.Notify was done")
		default:
		}
		if !started.Load() {
			t.Error("the second stage waited for signal.Notify; it should start beside it")
		}
		close(release)
		<-done
		if !notified.Load() || pid != 42 {
			t.Fatalf("after Notify: notified %v, pid %d", notified.Load(), pid)
		}
	})
}
