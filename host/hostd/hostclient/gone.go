package hostclient

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// GoneCause is how a front end names why its host went away mid-call.
// A dropped connection reads one way, whichever end of the socket the
// client saw first (an EOF, or a reset when the host died with unread
// bytes): which one is a race, and the small front end and the full CLI
// must say the same (cmd/launcher's TestRunHostDies). Any other error is
// said as it is.
func GoneCause(err error) string {
	if err == nil {
		return "the stream ended"
	}
	if status.Code(err) == codes.Unavailable {
		return "its connection closed"
	}
	return err.Error()
}
