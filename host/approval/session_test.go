package approval

import (
	"testing"
	"time"
)

func TestSessionAllowsExpireAndRevoke(t *testing.T) {
	clk := newClock()
	s := NewSessionAllows(10 * time.Minute)
	auth := authority(t, "s1", "rev1", "fs.write")
	req := writeRequest(t, auth, "notes.txt")

	if _, ok := s.Covers(clk.Now(), req); ok {
		t.Fatal("an empty store covers a call")
	}
	a := s.Grant(clk.Now(), req)
	if a.Tool != "write_file" || a.Session != "s1" || a.Scope != ScopeSession || !a.Expires.Equal(clk.Now().Add(10*time.Minute)) || len(a.Fingerprint) != 12 {
		t.Fatalf("Grant = %+v", a)
	}
	clk.Advance(10*time.Minute - time.Second)
	if _, ok := s.Covers(clk.Now(), req); !ok {
		t.Fatal("an allow expired early")
	}
	if l := s.ListAt(clk.Now()); len(l) != 1 || l[0] != a {
		t.Fatalf("ListAt = %+v", l)
	}
	clk.Advance(time.Second)
	if _, ok := s.Covers(clk.Now(), req); ok {
		t.Fatal("an allow outlived its TTL")
	}
	if l := s.ListAt(clk.Now()); len(l) != 0 {
		t.Fatalf("ListAt after expiry = %+v", l)
	}

	other := writeRequest(t, authority(t, "s2", "rev1", "fs.write"), "notes.txt")
	s.Grant(clk.Now(), req)
	s.Grant(clk.Now(), writeRequest(t, auth, "b.txt"))
	s.Grant(clk.Now(), other)
	if n := s.Revoke("s1"); n != 2 {
		t.Fatalf("Revoke(s1) = %d, want 2", n)
	}
	if _, ok := s.Covers(clk.Now(), req); ok {
		t.Error("a revoked allow still covers")
	}
	if _, ok := s.Covers(clk.Now(), other); !ok {
		t.Error("revoking s1 dropped s2's allow")
	}
}

func TestSessionAllowsDefaultTTLAndOrder(t *testing.T) {
	if got := NewSessionAllows(0).TTL(); got != DefaultSessionTTL {
		t.Errorf("TTL = %v, want %v", got, DefaultSessionTTL)
	}
	clk := newClock()
	s := NewSessionAllows(time.Hour)
	auth := authority(t, "s1", "rev1")
	s.Grant(clk.Now(), writeRequest(t, auth, "late.txt"))
	clk.Advance(-time.Minute)
	s.Grant(clk.Now(), writeRequest(t, auth, "early.txt"))
	l := s.ListAt(clk.Now())
	if len(l) != 2 || !l[0].Expires.Before(l[1].Expires) {
		t.Errorf("ListAt is not soonest first: %+v", l)
	}
}

func TestSessionAllowIsBoundToAuthorityAndSubjects(t *testing.T) {
	clk := newClock()
	s := NewSessionAllows(time.Hour)
	auth := authority(t, "s1", "rev1", "fs.write")
	s.Grant(clk.Now(), writeRequest(t, auth, "notes.txt"))

	samePathOtherSpelling := writeRequest(t, auth, "./dir/../notes.txt")
	if _, ok := s.Covers(clk.Now(), samePathOtherSpelling); !ok {
		t.Error("the same resolved path is not covered")
	}
	otherPolicy := auth
	otherPolicy.PolicyFingerprint = "p2"
	otherPrincipal := auth
	otherPrincipal.Principal = "someone"
	for name, req := range map[string]Request{
		"other path":           writeRequest(t, auth, "other.txt"),
		"other session":        writeRequest(t, authority(t, "s2", "rev1", "fs.write"), "notes.txt"),
		"other core revision":  writeRequest(t, authority(t, "s1", "rev2", "fs.write"), "notes.txt"),
		"other capability set": writeRequest(t, authority(t, "s1", "rev1", "fs.write", "fs.read"), "notes.txt"),
		"other policy":         writeRequest(t, otherPolicy, "notes.txt"),
		"other principal":      writeRequest(t, otherPrincipal, "notes.txt"),
	} {
		if _, ok := s.Covers(clk.Now(), req); ok {
			t.Errorf("%s: covered by the session allow", name)
		}
	}
	otherTool := writeRequest(t, auth, "notes.txt")
	otherTool.Tool = "patch"
	if _, ok := s.Covers(clk.Now(), otherTool); ok {
		t.Error("another tool with the same fingerprint is covered")
	}
}
