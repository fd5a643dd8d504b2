package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// base is what every provider shares: its names, the key, the wrapped
// HTTP client and the retry loop.
type base struct {
	provider string
	cfg      Config
	key      string
	keyEnv   string
	hc       *http.Client
	opts     options
}

func (b *base) Name() string       { return b.provider + ":" + b.cfg.Name }
func (b *base) ContextWindow() int { return contextWindow(b.cfg) }

// maxOutput is the request's output limit, else the configured one, else
// a default every current model accepts (Anthropic requires one).
func (b *base) maxOutput(req Request) int64 {
	switch {
	case req.MaxOutputTokens > 0:
		return int64(req.MaxOutputTokens)
	case b.cfg.MaxOutputTokens > 0:
		return int64(b.cfg.MaxOutputTokens)
	}
	return 8192
}

func (b *base) temperature(req Request) *float64 {
	if req.Temperature != nil {
		return req.Temperature
	}
	return b.cfg.Temperature
}

// tryFunc makes one streaming request, sending text through emit, and
// returns the assembled reply or what went wrong.
type tryFunc func(ctx context.Context, emit func(string)) (Reply, error)

// run makes tries until one succeeds, one fails in a way a retry cannot
// mend, or the bounds are reached. A try that already showed text is
// never repeated: the text would be shown twice.
func (b *base) run(ctx context.Context, onDelta func(Delta), try tryFunc) (Reply, error) {
	waited := time.Duration(0)
	for n := 1; ; n++ {
		a := &attempt{}
		delivered := false
		emit := func(t string) {
			if t == "" {
				return
			}
			delivered = true
			if onDelta != nil {
				onDelta(Delta{Text: t})
			}
		}
		reply, err := try(withAttempt(ctx, a), emit)
		if err == nil {
			return reply, nil
		}
		f := b.classify(ctx, a, err, delivered)
		if !f.retryable || n >= b.opts.maxTries {
			return Reply{}, b.fail(f, n)
		}
		wait, named := retryAfter(a.header, b.opts.now())
		if !named {
			wait = b.opts.backoff(n)
		}
		if wait > maxSingleWait || waited+wait > maxTotalWait {
			f.what += fmt.Sprintf("; the next try would wait %s, past the %s bound", wait.Round(time.Second), maxTotalWait)
			return Reply{}, b.fail(f, n)
		}
		if onDelta != nil {
			onDelta(Delta{Retry: &Retry{Try: n + 1, Of: b.opts.maxTries, Wait: wait, Why: b.fail(f, 1).Error()}})
		}
		if err := b.opts.sleep(ctx, wait); err != nil {
			return Reply{}, b.fail(contextFailure(ctx), n)
		}
		waited += wait
	}
}

// classify says what one failed try was and whether another may mend it.
func (b *base) classify(ctx context.Context, a *attempt, err error, delivered bool) *failure {
	if f := contextFailure(ctx); f != nil {
		return f
	}
	if a.status >= 400 {
		msg, typ := serverMessage(a.body)
		f := &failure{status: a.status, detail: msg}
		switch {
		case a.status == http.StatusTooManyRequests:
			f.what, f.retryable = "rate limited (429)", true
		case a.status == 529 || typ == "overloaded_error":
			f.what, f.retryable = "overloaded", true
		case a.status >= 500:
			f.what, f.retryable = fmt.Sprintf("server error (%d)", a.status), true
		case a.status == http.StatusUnauthorized || a.status == http.StatusForbidden:
			f.what = fmt.Sprintf("the server refused the key (%d)", a.status)
			if b.keyEnv != "" {
				f.what = fmt.Sprintf("the server refused the key from %s (%d)", b.keyEnv, a.status)
			}
		default:
			f.what = fmt.Sprintf("the server refused the request for model %q (%d)", b.cfg.Name, a.status)
		}
		return f
	}
	if a.notStream {
		return &failure{status: a.status,
			what:   fmt.Sprintf("the server did not answer with an event stream (status %d, Content-Type %q)", a.status, a.contentType),
			detail: strings.TrimSpace(string(a.body))}
	}
	var ib *inBandError
	isInBand := errors.As(err, &ib)
	// An event the SDK could not decode is the server's fault, whatever
	// came before it: saying "the connection dropped" would send the
	// operator after the network.
	if isMalformed(err) {
		what := "the server sent a malformed stream event (not JSON)"
		if delivered {
			what += " after text arrived (not retried: the text was already shown)"
		}
		return &failure{what: what, detail: err.Error()}
	}
	if delivered {
		what := "the connection dropped mid-stream after text arrived (not retried: the text was already shown)"
		if isInBand {
			what = "the stream reported an error after text arrived (not retried: the text was already shown)"
		}
		return &failure{what: what, detail: err.Error()}
	}
	switch {
	case isInBand:
		retry := false
		for _, t := range []string{"overloaded", "rate_limit", "server_error", "api_error", "internal", "unavailable", "resource_exhausted"} {
			retry = retry || strings.Contains(strings.ToLower(ib.typ), t)
		}
		what := "the stream reported an error"
		if strings.Contains(ib.typ, "overloaded") {
			what = "overloaded"
		}
		return &failure{what: what, detail: ib.Error(), retryable: retry}
	case errors.Is(err, errStreamCut), errors.Is(err, io.ErrUnexpectedEOF):
		return &failure{what: "the connection dropped mid-stream", detail: err.Error(), retryable: true}
	case unreachable(err):
		return &failure{what: "could not connect (not retried: nothing answers at that address; check --base-url or base_url)", detail: err.Error()}
	}
	return &failure{what: "the request failed", detail: err.Error(), retryable: true}
}

func isMalformed(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syn) || errors.As(err, &typ) || strings.Contains(err.Error(), "invalid character")
}

// fail turns a failure into the step's error, scrubbed of the key.
func (b *base) fail(f *failure, tries int) error {
	msg := b.provider + ": " + f.what
	if f.retryable && tries > 1 {
		msg += fmt.Sprintf(" after %d tries", tries)
	}
	if d := scrub(f.detail, b.key); d != "" {
		msg += ": " + d
	}
	return &Error{Provider: b.provider, Status: f.status, Tries: tries, msg: scrub(msg, b.key), cause: f.cause}
}

func (b *base) client() *http.Client { return b.hc }
