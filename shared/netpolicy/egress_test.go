package netpolicy

import (
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnEgressProxyRefusalIsARefusal: through the host's egress proxy (a
// confined package's only way out) a refused tunnel is the policy's
// refusal with the proxy's reason, which a provider reports as refused
// rather than as a network error to retry.
func TestAnEgressProxyRefusalIsARefusal(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "p.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || r.Host != "api.example.com:443" {
			http.Error(w, "unexpected "+r.Method+" "+r.Host, http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte("demiurge egress proxy: refused http://api.example.com:443: the name api.example.com resolves to a private network address\n"))
	}))
	c := &http.Client{Transport: EgressTransport(sock, nil)}
	_, err = c.Get("https://api.example.com/search?q=secret")
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("err %v, want a refusal", err)
	}
	if msg := SafeMessage(err); !strings.Contains(msg, "refused https://api.example.com:443: ") || !strings.Contains(msg, "private network address") || strings.Contains(msg, "secret") {
		t.Fatalf("message %q", msg)
	}
}
