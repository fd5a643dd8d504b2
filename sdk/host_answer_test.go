package sdk

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestHostAnswer(t *testing.T) {
	cases := []struct {
		name        string
		out         string
		err         error
		noHost      string
		code, text  string
		wantIsError bool
	}{
		{"payload", `{"content":"rolled back","live":"abc"}`, nil, "x", "", "rolled back", false},
		{"no host, named", "", ErrNoHost, "child agents are not available here", "unavailable", "child agents are not available here", true},
		{"no host, unnamed", "", ErrNoHost, "", "unavailable", ErrNoHost.Error(), true},
		{"refused by the host", "", status.Error(codes.InvalidArgument, "nothing previous"), "x", "refused", "nothing previous", true},
		{"not permitted", "", status.Error(codes.PermissionDenied, "not for this tool"), "x", "unavailable", "not for this tool", true},
		{"unreadable answer", "not json", nil, "x", "unavailable", "the host's answer could not be read", true},
		{"other error", "", errors.New("broken pipe"), "x", "unavailable", "broken pipe", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := HostAnswer(c.out, c.err, c.noHost)
			if r.IsError != c.wantIsError || r.ErrorCode != c.code || r.Content != c.text {
				t.Fatalf("HostAnswer = {IsError:%v ErrorCode:%q Content:%q}, want {%v %q %q}", r.IsError, r.ErrorCode, r.Content, c.wantIsError, c.code, c.text)
			}
			if c.err == nil && c.code == "" {
				m, _ := r.Structured.(map[string]any)
				if _, has := m["content"]; has || m["live"] != "abc" {
					t.Fatalf("structured = %v: want the payload without content", r.Structured)
				}
			}
		})
	}
}
