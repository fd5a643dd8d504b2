package approval

import (
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/policy"
)

// TestAllowSaysWhatItCovers: /approvals shows the subjects of each allow,
// and one allow can be revoked without touching the others.
func TestAllowSaysWhatItCovers(t *testing.T) {
	s := NewSessionAllows(time.Minute)
	now := time.Now()
	auth := authority(t, "s1", "rev1")
	a := s.Grant(now, writeRequest(t, auth, "notes.txt"))
	b := s.Grant(now.Add(time.Second), writeRequest(t, auth, "sub/\x1b[2Jother.txt"))
	if a.Covers != "write notes.txt" {
		t.Errorf("coverage %q", a.Covers)
	}
	if !strings.Contains(b.Covers, `write sub/\x1b[2Jother.txt`) || strings.Contains(b.Covers, "\x1b") {
		t.Errorf("coverage not inert: %q", b.Covers)
	}
	if !s.RevokeAllow(a) || s.RevokeAllow(a) {
		t.Fatal("RevokeAllow: the first revoke must drop the allow, the second find nothing")
	}
	if _, ok := s.Covers(now, writeRequest(t, auth, "notes.txt")); ok {
		t.Error("a revoked allow still covers its call")
	}
	if _, ok := s.Covers(now, writeRequest(t, auth, "sub/\x1b[2Jother.txt")); !ok {
		t.Error("revoking one allow dropped another")
	}
	if s.RevokeAllow(Allow{}) {
		t.Error("a zero Allow revoked something")
	}
}

// TestCoverageNamesACommandsDirectory: a command's allow names the
// directory it ran in as the workspace knows it (relative), the absolute
// one outside it, "." when neither is known, and whether it ran in the
// background.
func TestCoverageNamesACommandsDirectory(t *testing.T) {
	cmd := func(rel, resolved string, bg bool) Request {
		return Request{Subjects: []policy.SubjectFact{{Kind: "command", Arg: "command", Value: "make", Rel: rel, Resolved: resolved,
			Command: &policy.CommandFact{Background: bg}}}}
	}
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{cmd("sub", "/ws/sub", false), `command "make" in sub, foreground`},
		{cmd("", "/elsewhere", true), `command "make" in /elsewhere, background`},
		{cmd("", "", false), `command "make" in ., foreground`},
	} {
		if got := coverage(tc.req); got != tc.want {
			t.Errorf("coverage = %q, want %q", got, tc.want)
		}
	}
}
