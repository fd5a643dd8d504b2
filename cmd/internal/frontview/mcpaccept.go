package frontview

import (
	"errors"
	"net"
	"time"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/host/mcpserve/mcpbind"
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

// relayedPerRequest is how many relayed connections each request the
// host serves at once (--max-concurrent) may stand for: an MCP client
// keeps a POST connection and a GET stream, and keep-alive connections
// sit idle between requests (the host closes them after its idle
// timeout); a request beyond --max-concurrent is answered 503 anyway.
const relayedPerRequest = mcpbind.ConnsPerRequest

// gateRelayed caps the connections with the token relayed at once at
// relayedPerRequest × maxConcurrent (≤ 0 is the host's default, as the
// host reads it), so that clients, with --listen-public from the network,
// cannot open connections until this process runs out of file
// descriptors; connections that have not sent a request head with the
// token wait in places of their own, the oldest closed for a new one, so
// that they never keep a client with the token out (mcpbind.Gate).
func gateRelayed(ln net.Listener, token string, maxConcurrent int32) net.Listener {
	n := int(maxConcurrent)
	if n <= 0 {
		n = frontargs.DefaultMCPMaxConcurrent
	}
	return mcpbind.Gate(ln, token, relayedPerRequest*n)
}
