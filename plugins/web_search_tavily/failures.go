package main

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

// Soft failures: every way a search can fail comes back as a result that
// says what happened and what the model can do, never as a crash.

func missingKey() *sdk.Result {
	return sdk.Errorf("missing_api_key", "web_search is not configured: no %s is set in the host's environment. Retrying will not help; tell the operator to set %s and restart, or continue without web search.", secretTarget, secretTarget)
}

func unauthorized(status int, detail string) *sdk.Result {
	return sdk.Errorf("unauthorized", "%s refused the API key bound by the host (HTTP %d%s). Retrying will not help; tell the operator to check %s.", providerTitle, status, detailSuffix(detail), secretTarget)
}

func rateLimited(retryAfter string) *sdk.Result {
	wait := "a little while"
	if s, err := strconv.Atoi(strings.TrimSpace(retryAfter)); err == nil && s >= 0 {
		wait = fmt.Sprintf("%d seconds", s)
	}
	return sdk.Errorf("rate_limited", "%s's rate limit or quota was reached (HTTP 429). Retry after %s, or continue without web search.", providerTitle, wait)
}

func unavailable(status int) *sdk.Result {
	return sdk.Errorf("provider_unavailable", "%s is unavailable (HTTP %d). Retry later, or continue without web search.", providerTitle, status)
}

func rejected(status int, detail string) *sdk.Result {
	return sdk.Errorf("invalid_request", "%s rejected the search (HTTP %d%s). Change the query or the filters and retry.", providerTitle, status, detailSuffix(detail))
}

func unexpected(status int) *sdk.Result {
	return sdk.Errorf("unexpected_status", "%s answered with HTTP %d, which this provider package does not expect. Retry later, or continue without web search.", providerTitle, status)
}

func badResponse(why string) *sdk.Result {
	return sdk.Errorf("bad_response", "%s sent a response that could not be read (%s). Retry later, or continue without web search.", providerTitle, why)
}

// transportFailure describes a request that got no HTTP answer. The error
// text is not passed on: it names addresses, not anything the model can
// act on.
func transportFailure(ctx context.Context, err error) *sdk.Result {
	var ne net.Error
	switch {
	case errors.Is(err, netpolicy.ErrRefused):
		return sdk.Errorf("refused", "%s was not contacted: the host's URL policy refused its address (%s). Retrying will not help; continue without web search and tell the operator.", providerTitle, netpolicy.SafeMessage(err))
	case errors.Is(ctx.Err(), context.Canceled):
		return sdk.Errorf("cancelled", "the search was cancelled.")
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return sdk.Errorf("timeout", "%s did not answer in time. Retry once, with a shorter query, or continue without web search.", providerTitle)
	}
	return sdk.Errorf("unreachable", "%s could not be reached (network error). Retry later, or continue without web search.", providerTitle)
}

// classify maps an HTTP error status to its soft failure.
func classify(status int, header http.Header, detail string) *sdk.Result {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return unauthorized(status, detail)
	case status == http.StatusTooManyRequests:
		return rateLimited(header.Get("Retry-After"))
	case status >= 500:
		return unavailable(status)
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		return rejected(status, detail)
	}
	return unexpected(status)
}

func detailSuffix(detail string) string {
	if detail == "" {
		return ""
	}
	return ": " + detail
}

// providerDetail bounds a provider's error message and takes the key out
// of it, should a provider ever echo it.
func providerDetail(detail, key string) string {
	if key != "" {
		detail = strings.ReplaceAll(detail, key, "[redacted:"+secretTarget+"]")
	}
	detail = cleanText(detail, 200)
	if key != "" {
		// Unescaping entities could have spelled it again.
		detail = strings.ReplaceAll(detail, key, "[redacted:"+secretTarget+"]")
	}
	return detail
}
