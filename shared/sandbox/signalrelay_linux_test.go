package sandbox

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// TestInitStartsOnlyOnceSignalsAreCaught: the init forks its command only
// after signal.Notify is done, however late it is. synctest.Wait returns
// once every goroutine of the bubble is blocked, so "start has not run
// while notify is held" is checked without a timer.
func TestInitStartsOnlyOnceSignalsAreCaught(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var caught, started atomic.Bool
		relay := newSignalRelay(func(c chan<- os.Signal) {
			<-release
			caught.Store(true)
		}, nil)
		done := make(chan struct{})
		var sigs chan os.Signal
		var pid int
		go func() {
			defer close(done)
			var err error
			sigs, pid, err = relay.startWhenReady(func() (int, error) {
				if !caught.Load() {
					t.Error("the command started before its signals were caught")
				}
				started.Store(true)
				return 42, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
		synctest.Wait()
		if started.Load() {
			t.Error("startWhenReady did not wait for signal.Notify")
		}
		close(release)
		<-done
		if !started.Load() || pid != 42 {
			t.Fatalf("once the signals are caught: started %v, pid %d", started.Load(), pid)
		}
		if sigs != relay.sigs {
			t.Error("startWhenReady returned another channel than the one notify was given")
		}
	})
}

// TestInitRelayAsksForItsSignals: the production relay asks for every
// signal of initSignals on the channel it hands over.
func TestInitRelayAsksForItsSignals(t *testing.T) {
	relay := relaySignals(nil)
	sigs, _, _ := relay.startWhenReady(func() (int, error) { return 0, nil })
	defer signal.Stop(sigs)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-sigs:
		if got != syscall.SIGUSR2 {
			t.Fatalf("the relay got %v, want SIGUSR2", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SIGUSR2 did not come on the relay's channel")
	}
}
