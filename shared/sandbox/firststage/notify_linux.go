package firststage

// startBesideNotify runs notify (signal.Notify) on a goroutine of its own
// while start starts the second stage, and returns only once both are
// done. The Go runtime enables each signal through a round trip to a
// thread of its own: done beside the start, not before it. A signal that
// comes first ends this stage as it always could, and the second stage
// with it (Pdeathsig). Once this returns, while the stage waits for its
// child, every signal is passed on; and a Notify still to come could not
// catch the signal dieOf sends this stage to die of the command's.
func startBesideNotify(notify func(), start func() (int, error)) (int, error) {
	notified := make(chan struct{})
	go func() {
		notify()
		close(notified)
	}()
	pid, err := start()
	<-notified
	return pid, err
}
