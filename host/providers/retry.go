package providers

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The retry bounds: tries in all, the longest single wait (a Retry-After
// beyond it ends the retries at once) and the most waited in all.
const (
	DefaultMaxTries   = 4
	maxSingleWait     = 60 * time.Second
	maxTotalWait      = 90 * time.Second
	firstBackoff      = 500 * time.Millisecond
	maxBackoff        = 8 * time.Second
	retryAfterMsField = "Retry-After-Ms"
)

// options are New's knobs for tests and callers with their own clock.
type options struct {
	maxTries int
	sleep    func(context.Context, time.Duration) error
	now      func() time.Time
	jitter   func(time.Duration) time.Duration
}

// Option changes how a provider retries.
type Option func(*options)

// WithClock replaces the waiting and the time of day the retries use, so
// tests neither sleep nor depend on the wall clock.
func WithClock(sleep func(context.Context, time.Duration) error, now func() time.Time) Option {
	return func(o *options) { o.sleep, o.now = sleep, now }
}

func defaultOptions() options {
	return options{
		maxTries: DefaultMaxTries,
		sleep:    sleepCtx,
		now:      time.Now,
		// Full jitter in [d/2, d]: tries of many clients spread out.
		jitter: func(d time.Duration) time.Duration { return d/2 + rand.N(d/2+1) },
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is the wait before try n+1 (n >= 1) when the server named none.
func (o options) backoff(n int) time.Duration {
	d := firstBackoff << (n - 1)
	if d > maxBackoff || d <= 0 {
		d = maxBackoff
	}
	return o.jitter(d)
}

// retryAfter reads the server's wait: retry-after-ms (milliseconds,
// OpenAI's and Anthropic's), else Retry-After in seconds or as an HTTP
// date. ok is false when the headers name no usable wait.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get(retryAfterMsField)); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s >= 0 && s <= 1e9) { // NaN too
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}
