package netpolicy

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// EnvEgressSocket names the unix socket of the host's egress proxy in a
// confined package plugin's environment. Such a plugin opens no IP socket
// (the kernel refuses it): every connection goes through that proxy,
// which applies this policy on the host's side (the name looked up there,
// every address checked, the dial pinned to the answer).
const EnvEgressSocket = "DEMIURGE_EGRESS_SOCKET"

// EgressTransport sends every request through the egress proxy on the
// unix socket: https as a CONNECT tunnel (TLS end to end, the proxy sees
// the name and port only), plain http as an absolute-URI request. It does
// no lookup of its own; the proxy judges the target and answers a refusal
// with 403 (a CONNECT's refusal is an error here).
func EgressTransport(socket string, tlsConfig *tls.Config) http.RoundTripper {
	d := &net.Dialer{Timeout: 10 * time.Second}
	t := &http.Transport{
		// The proxy's URL only names the scheme net/http speaks to it;
		// every connection is dialled to the socket.
		Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: "demiurge-egress.invalid"}),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", socket)
		},
		// The proxy refuses a tunnel with 403 and says why in its body:
		// that is the policy's refusal (ErrRefused), not a network error
		// worth retrying.
		OnProxyConnectResponse: func(_ context.Context, _ *url.URL, req *http.Request, res *http.Response) error {
			if res.StatusCode == http.StatusOK {
				return nil
			}
			b, _ := io.ReadAll(io.LimitReader(res.Body, 1024))
			why := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(b)), "demiurge egress proxy: "))
			if why == "" {
				why = res.Status
			}
			if res.StatusCode == http.StatusForbidden {
				return refused("https://"+req.Host, "egress-proxy", "the host's egress proxy: "+why)
			}
			return fmt.Errorf("the host's egress proxy: %s", why)
		},
		TLSHandshakeTimeout:   10 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   4,
		ExpectContinueTimeout: time.Second,
	}
	if tlsConfig != nil {
		t.TLSClientConfig = tlsConfig.Clone()
		t.TLSClientConfig.ServerName = ""
	}
	return t
}
