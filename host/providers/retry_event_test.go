package providers

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRetryIsReported: each retry reaches the step's callback before the
// wait, with the try that follows, the wait and why, and no text.
func TestRetryIsReported(t *testing.T) {
	h := newHarness(t, ProviderOpenAI, errStep(429, "rate_limit_error", "slow down", map[string]string{"Retry-After": "3"}), okStep)
	var retries []Retry
	_, err := h.p.Stream(context.Background(), hello(), func(d Delta) {
		if d.Retry != nil {
			if d.Text != "" {
				t.Errorf("a retry delta carries text %q", d.Text)
			}
			retries = append(retries, *d.Retry)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(retries) != 1 || retries[0].Try != 2 || retries[0].Of != DefaultMaxTries || retries[0].Wait != 3*time.Second ||
		!strings.Contains(retries[0].Why, "rate limited (429)") || strings.Contains(retries[0].Why, testKey) {
		t.Errorf("retries = %+v", retries)
	}
}

// TestRefusedConnectionIsNotRetried: nothing listening at the address is
// one try and an error that says so, not four tries of the same answer.
func TestRefusedConnectionIsNotRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // now nothing listens there
	clock := &fakeClock{now: time.Now()}
	p, err := New(Config{Provider: ProviderOpenAICompatible, Name: "m", BaseURL: "http://" + addr + "/v1"}, keyEnv,
		&http.Client{Transport: &http.Transport{}}, WithClock(clock.sleep, func() time.Time { return clock.now }))
	if err != nil {
		t.Fatal(err)
	}
	defer closeIdle(p)
	retried := false
	_, err = p.Stream(context.Background(), hello(), func(d Delta) { retried = retried || d.Retry != nil })
	var pe *Error
	if !errors.As(err, &pe) || pe.Tries != 1 || retried || len(clock.Waits()) != 0 {
		t.Fatalf("err %v (tries %v), retried %v, waits %v; want one try", err, pe, retried, clock.Waits())
	}
	for _, want := range []string{"could not connect (not retried", "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestMissingKeyIsErrNoKey: the missing key is recognisable (run exits 2).
func TestMissingKeyIsErrNoKey(t *testing.T) {
	_, err := New(Config{Provider: ProviderAnthropic, Name: "claude-x"}, env(nil), nil)
	if !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "no API key: the environment variable ANTHROPIC_API_KEY is not set") {
		t.Errorf("err = %v", err)
	}
}
