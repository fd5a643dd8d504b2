package mcp

import (
	"strings"
	"testing"

	sredact "demiurge.dev/shared/redact"
)

// noSecrets redacts token formats only: the window as it would be cut
// without the declaration's values.
var noSecrets = sredact.NewReplacer(nil)

// TestStderrRedactedBeforeTheCut: a secret that the window's start would
// split is replaced while whole, so no part of it reaches the log; token
// formats are replaced too.
func TestStderrRedactedBeforeTheCut(t *testing.T) {
	const secret = "tok-SPLITME-0123456789"
	r := sredact.NewReplacer([]sredact.Secret{{Target: "env:TOKEN", Value: secret}})
	tail := newStderrTail()
	// The window starts 8 bytes into the secret.
	tail.Write([]byte(secret + strings.Repeat("a", StderrWindow-len(secret)+8)))
	if raw := tail.redactedWindow(noSecrets); !strings.HasPrefix(raw, secret[8:]) {
		t.Fatalf("the fixture does not split the secret: %q", raw[:20])
	}
	w := tail.redactedWindow(r)
	if strings.Contains(w, secret[8:]) || len([]rune(w)) != StderrWindow {
		t.Fatalf("window starts %q (%d chars)", w[:30], len([]rune(w)))
	}
	tail.Write([]byte("\nauth ghp_abcdefghijklmnopqrstuvwxyz0123456789 failed\n"))
	if w := tail.redactedWindow(r); strings.Contains(w, "ghp_abcdef") || !strings.Contains(w, "failed") {
		t.Fatalf("token left in %q", w[len(w)-80:])
	}
}
