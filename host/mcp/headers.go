package mcp

import (
	"net/http"
	"net/url"

	"demiurge.dev/host/core"
)

// originHeaders puts a manifest's headers on every request to the
// server's own origin, and on no other. mcp-go's transport adds its
// configured headers to its POSTs only, so the DELETE that ends a session
// went without the API key and was refused; and http.Client carries a
// request's custom headers across a redirect to another host, which
// would hand that key to whatever the server redirects to.
type originHeaders struct {
	inner   http.RoundTripper
	origin  string // scheme://host[:port], as url.URL gives them
	headers []core.KV
}

func newOriginHeaders(inner http.RoundTripper, serverURL string, headers []core.KV) (http.RoundTripper, error) {
	if len(headers) == 0 {
		return inner, nil
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, err
	}
	return &originHeaders{inner: inner, origin: originOf(u), headers: headers}, nil
}

func (o *originHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	if originOf(req.URL) != o.origin {
		return o.inner.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	for _, kv := range o.headers {
		r.Header.Set(kv.Key, kv.Value)
	}
	return o.inner.RoundTrip(r)
}

func originOf(u *url.URL) string { return u.Scheme + "://" + u.Host }
