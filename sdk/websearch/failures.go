package websearch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"demiurge.dev/sdk"
	"demiurge.dev/shared/netpolicy"
)

// Provider names a search service in what the model reads: its title in
// messages, and the name the host binds its key under.
type Provider struct {
	// Title is the service as the model reads it, e.g. "Example Search".
	Title string
	// SecretTarget is the name the host binds the API key under, and the
	// host variable it comes from (package.json declares it).
	SecretTarget string
}

// Soft failures: every way a search can fail comes back as a result that
// says what happened and what the model can do, never as a crash.

func (p Provider) missingKey() *sdk.Result {
	return sdk.Errorf("missing_api_key", "web_search is not configured: no %s is set in the host's environment. Retrying will not help; tell the operator to set %s and restart, or continue without web search.", p.SecretTarget, p.SecretTarget)
}

// Unauthorized says the provider refused the key.
func (p Provider) Unauthorized(status int, detail string) *sdk.Result {
	return sdk.Errorf("unauthorized", "%s refused the API key bound by the host (HTTP %d%s). Retrying will not help; tell the operator to check %s.", p.Title, status, detailSuffix(detail), p.SecretTarget)
}

// RateLimited says a rate limit or quota was reached, and how long to wait
// when the provider said (Retry-After in seconds).
func (p Provider) RateLimited(retryAfter string) *sdk.Result {
	wait := "a little while"
	if s, err := strconv.Atoi(strings.TrimSpace(retryAfter)); err == nil && s >= 0 {
		wait = fmt.Sprintf("%d seconds", s)
	}
	return sdk.Errorf("rate_limited", "%s's rate limit or quota was reached (HTTP 429). Retry after %s, or continue without web search.", p.Title, wait)
}

func (p Provider) unavailable(status int) *sdk.Result {
	return sdk.Errorf("provider_unavailable", "%s is unavailable (HTTP %d). Retry later, or continue without web search.", p.Title, status)
}

func (p Provider) rejected(status int, detail string) *sdk.Result {
	return sdk.Errorf("invalid_request", "%s rejected the search (HTTP %d%s). Change the query or the filters and retry.", p.Title, status, detailSuffix(detail))
}

func (p Provider) unexpected(status int) *sdk.Result {
	return sdk.Errorf("unexpected_status", "%s answered with HTTP %d, which this provider package does not expect. Retry later, or continue without web search.", p.Title, status)
}

// BadResponse says the provider's answer could not be used, and why.
func (p Provider) BadResponse(why string) *sdk.Result {
	return sdk.Errorf("bad_response", "%s sent a response that could not be read (%s). Retry later, or continue without web search.", p.Title, why)
}

// transportFailure describes a request that got no HTTP answer. The error
// text is not passed on: it names addresses, not anything the model can
// act on.
func (p Provider) transportFailure(ctx context.Context, err error) *sdk.Result {
	var ne net.Error
	switch {
	case errors.Is(err, netpolicy.ErrRefused):
		return sdk.Errorf("refused", "%s was not contacted: the host's URL policy refused its address (%s). Retrying will not help; continue without web search and tell the operator.", p.Title, netpolicy.SafeMessage(err))
	case errors.Is(ctx.Err(), context.Canceled):
		return sdk.Errorf("cancelled", "the search was cancelled.")
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return sdk.Errorf("timeout", "%s did not answer in time. Retry once, with a shorter query, or continue without web search.", p.Title)
	}
	return sdk.Errorf("unreachable", "%s could not be reached (network error). Retry later, or continue without web search.", p.Title)
}

// Classify maps an HTTP error status to its soft failure; detail is the
// provider's message, already passed through Detail.
func (p Provider) Classify(status int, header http.Header, detail string) *sdk.Result {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return p.Unauthorized(status, detail)
	case status == http.StatusTooManyRequests:
		return p.RateLimited(header.Get("Retry-After"))
	case status >= 500:
		return p.unavailable(status)
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		return p.rejected(status, detail)
	}
	return p.unexpected(status)
}

func detailSuffix(detail string) string {
	if detail == "" {
		return ""
	}
	return ": " + detail
}

// Detail bounds a provider's error message and takes the key out of it,
// should a provider ever echo it.
func (p Provider) Detail(detail, key string) string {
	if key != "" {
		detail = strings.ReplaceAll(detail, key, "[redacted:"+p.SecretTarget+"]")
	}
	detail = CleanText(detail, 200)
	if key != "" {
		// Unescaping entities could have spelled it again.
		detail = strings.ReplaceAll(detail, key, "[redacted:"+p.SecretTarget+"]")
	}
	return detail
}
