package frontview

import (
	"errors"
	"net"
	"time"
)

// acceptBackoff bounds the wait between failed Accepts (net/http's
// Server.Serve waits 5 ms, doubling, at most 1 s).
const (
	acceptBackoffFirst = 5 * time.Millisecond
	acceptBackoffMax   = time.Second
)

// acceptConns hands each connection ln accepts to serve, each on its own
// goroutine, until ln is closed. Any other Accept error (out of file
// descriptors, a connection reset before it was accepted) is waited out
// and retried: ending here would leave the port bound with no one
// accepting, every later client hanging in the backlog.
func acceptConns(ln net.Listener, serve func(net.Conn)) {
	var wait time.Duration
	for {
		conn, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return // this command is ending
		}
		if err != nil {
			wait = min(max(2*wait, acceptBackoffFirst), acceptBackoffMax)
			time.Sleep(wait)
			continue
		}
		wait = 0
		go serve(conn)
	}
}
