package runtime

import (
	"crypto/subtle"
	"net"
	"os"
)

// The host socket (host/hostd) is authenticated as the task socket is:
// these export the task socket's checks, so the two cannot drift apart.

// Peer is who is on the other end of a Unix connection.
type Peer struct {
	PID, UID int
	Exe      string
	// RunBy names a demiurge host or plugin ancestor, "" if none.
	RunBy string
}

// PeerOf reads the connection's peer credentials (SO_PEERCRED).
func PeerOf(c *net.UnixConn) (Peer, error) {
	p, err := peerOf(c)
	return Peer{PID: p.pid, UID: p.uid, Exe: p.exe, RunBy: p.runBy}, err
}

// WriteSocketToken makes a fresh token, 0600 beside the socket at path.
func WriteSocketToken(socket string) (string, error) { return writeToken(socket) }

// ReadSocketToken reads the token beside the socket at path.
func ReadSocketToken(socket string) (string, error) { return readToken(socket) }

// ownUID is this process's user, read once: a demiurge never changes its
// uid, and os.Getuid is a system call on every admitted call otherwise.
var ownUID = os.Getuid()

// AdmitPeer says why a peer presenting token is refused by the socket at
// path whose token is want ("" when it may ask). what names the socket in
// the message ("the host socket").
func AdmitPeer(p Peer, token, want, path, what string) string {
	switch {
	case p.UID != ownUID:
		return what + " answers only its own user"
	case p.RunBy != "":
		return what + " does not answer commands or tools a demiurge runs (this one descends from " + p.RunBy + ")"
	case want == "" || subtle.ConstantTimeCompare([]byte(token), []byte(want)) != 1:
		return what + " needs the token of the running demiurge (" + TokenPath(path) + ")"
	}
	return ""
}
