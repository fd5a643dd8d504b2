package providers

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
)

// maxErrorBody bounds what is kept of an error reply (or of a success
// reply that is not an event stream): enough for any provider's message.
const maxErrorBody = 16 << 10

// attempt is what the transport saw of one HTTP exchange. The SDKs turn
// replies into their own error types; the retry policy needs the status,
// the headers (Retry-After) and the bounded body whatever SDK ran.
type attempt struct {
	status      int
	header      http.Header
	body        []byte // error replies and non-stream replies only, bounded
	contentType string
	notStream   bool // a 2xx reply that is not text/event-stream
}

type attemptKey struct{}

func withAttempt(ctx context.Context, a *attempt) context.Context {
	return context.WithValue(ctx, attemptKey{}, a)
}

// captureTransport records each exchange into the request's attempt, reads
// at most maxErrorBody of an error reply (so no SDK reads an unbounded
// error body), and turns a 2xx reply that is not an event stream into an
// empty one, kept in the attempt for the error message.
type captureTransport struct{ next http.RoundTripper }

func (t captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(r)
	a, _ := r.Context().Value(attemptKey{}).(*attempt)
	if err != nil || a == nil {
		return res, err
	}
	a.status, a.header = res.StatusCode, res.Header.Clone()
	a.contentType = res.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(a.contentType)
	switch {
	case res.StatusCode >= 400:
		a.body = readBounded(res.Body)
		res.Body = io.NopCloser(bytes.NewReader(a.body))
	case res.StatusCode >= 200 && res.StatusCode < 300 && mt != "text/event-stream":
		a.notStream = true
		a.body = readBounded(res.Body)
		res.Body = io.NopCloser(bytes.NewReader(nil))
	}
	return res, nil
}

func readBounded(rc io.ReadCloser) []byte {
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, maxErrorBody))
	return b
}

// wrapClient is hc (or a default client) with the capture transport.
func wrapClient(hc *http.Client) *http.Client {
	c := &http.Client{}
	if hc != nil {
		*c = *hc
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = captureTransport{next: next}
	return c
}
