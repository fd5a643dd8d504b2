package approval

import (
	"context"
	"testing"
	"time"
)

// BenchmarkResolveSessionAllow measures the path of a call a session allow
// covers, after rules have been checked: the costliest non-interactive one.
func BenchmarkResolveSessionAllow(b *testing.B) {
	auth := authority(b, "s1", "rev1", "fs.write")
	req := writeRequest(b, auth, "notes.txt")
	r := &Resolver{Rules: mustRules(b, "deny:write_file:**/.env*", "allow:write_file:docs/**"), Sessions: NewSessionAllows(time.Hour)}
	r.Sessions.Grant(time.Now(), req)
	ctx := context.Background()
	for b.Loop() {
		if out, _ := r.Resolve(ctx, req); out.Via != ViaSession {
			b.Fatal(out)
		}
	}
}
