package websearch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"demiurge.dev/sdk"
	"demiurge.dev/shared/netpolicy"
)

// MaxBody bounds a response read into memory: 20 results with their
// snippets are far below it.
const MaxBody = 2 << 20

// Response is a provider's HTTP answer, read whole within MaxBody.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Fetch sends the request build makes, bounded by timeout (connection
// included), and reads the answer. Every failure is a soft failure result;
// an HTTP error status is not one here: the provider reads its error body.
func (p Provider) Fetch(ctx context.Context, client *http.Client, timeout time.Duration, build func(context.Context) (*http.Request, error)) (*Response, *sdk.Result) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := build(ctx)
	if err != nil {
		return nil, p.BadResponse("the request could not be built")
	}
	resp, err := client.Do(req)
	if errors.Is(err, errNoRedirects) {
		return nil, p.BadResponse("it redirected elsewhere, and the key is never sent after a redirect")
	}
	if err != nil {
		return nil, p.transportFailure(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, p.transportFailure(ctx, err)
	}
	if len(body) > MaxBody {
		return nil, p.BadResponse("it is larger than 2 MiB")
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// API is where a provider's service answers and how it is reached.
type API struct {
	Endpoint string
	// Client comes from NewHTTPClient.
	Client *http.Client
	// Timeout bounds one search, connection included; 0 leaves it to
	// the provider's Search.CallTimeout.
	Timeout time.Duration
}

// NewAPI is the service at endpoint, reached through the URL policy opts.
func NewAPI(endpoint string, opts netpolicy.Options) API {
	return API{Endpoint: endpoint, Client: NewHTTPClient(opts)}
}

// NewHTTPClient goes through the host's URL policy (shared/netpolicy):
// the API's name is resolved and every address checked (private, loopback,
// metadata and mixed answers refused), the connection is pinned to the
// verified address with Host and SNI kept, and no ambient proxy is used
// (a proxy would see the key). It follows no redirect: net/http would
// carry the key's header along.
//
// In a confined package plugin (netpolicy.EnvEgressSocket set) the
// process can open no IP socket: every request goes through the host's
// egress proxy on that socket, which applies the same policy on the
// host's side.
func NewHTTPClient(opts netpolicy.Options) *http.Client {
	opts.MaxRedirects = -1
	var rt http.RoundTripper
	if sock := os.Getenv(netpolicy.EnvEgressSocket); sock != "" {
		rt = netpolicy.EgressTransport(sock, opts.TLSClientConfig)
	} else {
		rt = netpolicy.New(opts).Transport()
	}
	return &http.Client{
		Transport:     rt,
		CheckRedirect: func(*http.Request, []*http.Request) error { return errNoRedirects },
	}
}

var errNoRedirects = errors.New("the search API redirected; redirects are not followed")
