package hostclient

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestGoneCauseIsOneForEitherEnd: the two ways a client sees its host's
// socket close (the spellings are grpc's, as CI saw them) read the same;
// another error is kept as it is.
func TestGoneCauseIsOneForEitherEnd(t *testing.T) {
	eof := status.Error(codes.Unavailable, "error reading from server: EOF")
	reset := status.Error(codes.Unavailable, "error reading from server: read unix @->/s/host.sock: read: connection reset by peer")
	if a, b := GoneCause(eof), GoneCause(reset); a != b || a != "its connection closed" {
		t.Fatalf("EOF reads %q, reset %q", a, b)
	}
	other := status.Error(codes.Internal, "the turn's store failed")
	if got := GoneCause(other); got != other.Error() {
		t.Fatalf("another error reads %q", got)
	}
	if got := GoneCause(errors.New("plain")); got != "plain" {
		t.Fatalf("a plain error reads %q", got)
	}
	if got := GoneCause(nil); got != "the stream ended" {
		t.Fatalf("no error reads %q", got)
	}
}
