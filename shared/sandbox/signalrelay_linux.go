package sandbox

import (
	"os"
	"os/signal"

	"demiurge.dev/shared/sandbox/firststage"
)

// signalRelay asks for the init's signals on a goroutine of its own, so
// that it overlaps the sandbox's setup: the Go runtime enables each
// signal through a round trip to a thread of its own, which costs the
// start of every command about half a millisecond when done in line.
// A signal that arrives before the command starts waits in the channel
// and is passed on once it runs.
type signalRelay struct {
	sigs  chan os.Signal
	ready chan struct{}
}

// relaySignals asks for initSignals and, once they are caught, tells the
// first stage on report (when not nil): it holds every signal until then.
func relaySignals(report *os.File) *signalRelay {
	return newSignalRelay(func(c chan<- os.Signal) { signal.Notify(c, initSignals...) }, report)
}

// newSignalRelay runs notify, which must ask for the signals on c, on a
// goroutine of its own, and then writes firststage.ReadyByte (declared
// there, which does not import this package) to report (when not nil).
// Only relaySignals and the package's tests call it: the tests make
// notify late (TestInitStartsOnlyOnceSignalsAreCaught).
//
// Until the first stage reads the ready byte it passes no signal on:
// before Notify, a signal to this process, a pid namespace's init, would be
// dropped by the kernel (before the Go runtime has a handler for it) or
// reach the runtime's default handler, which cannot kill an init and
// exits 2. The first stage starts this one in a process group of its own,
// so that its launcher's kill of its group does not reach it either.
func newSignalRelay(notify func(c chan<- os.Signal), report *os.File) *signalRelay {
	r := &signalRelay{sigs: make(chan os.Signal, 8), ready: make(chan struct{})}
	go func() {
		notify(r.sigs)
		if report != nil {
			_, _ = report.Write([]byte{firststage.ReadyByte})
		}
		close(r.ready)
	}()
	return r
}

// startWhenReady runs start (the command's fork) only once every signal
// is caught, and returns the channel they come on with start's results.
// Until then a signal would reach the Go runtime's default handler, and
// the init, pid 1 of its namespace, could neither die of it nor pass it
// on: it would exit 2 and the command would be killed with it. Once the
// command runs, every signal sent to the init is passed on.
func (r *signalRelay) startWhenReady(start func() (int, error)) (chan os.Signal, int, error) {
	<-r.ready
	pid, err := start()
	return r.sigs, pid, err
}
