package providers

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	pt "demiurge.dev/host/providers/providertest"
)

func errStep(status int, typ, msg string, headers map[string]string) pt.Step {
	return pt.Step{Error: &pt.ErrorReply{Status: status, Type: typ, Message: msg, Headers: headers}}
}

var okStep = pt.Step{Text: []string{"fine"}}

// TestRetriesThenSucceeds: 429 with each form of Retry-After, 500, 529 and
// an overloaded error event before any text are retried, waiting what the
// server asked or a bounded backoff; the step then succeeds.
func TestRetriesThenSucceeds(t *testing.T) {
	httpDate := time.Date(2026, 12, 1, 12, 0, 7, 0, time.UTC).Format(http.TimeFormat) // the fake clock's now + 7s
	for _, tc := range []struct {
		name      string
		providers []string
		first     pt.Step
		wait      time.Duration // 0: a backoff in [250ms, 500ms]
	}{
		{"429 Retry-After seconds", allProviders, errStep(429, "rate_limit_error", "slow down", map[string]string{"Retry-After": "3"}), 3 * time.Second},
		{"429 Retry-After HTTP date", allProviders, errStep(429, "rate_limit_error", "slow down", map[string]string{"Retry-After": httpDate}), 7 * time.Second},
		{"429 retry-after-ms", allProviders, errStep(429, "rate_limit_error", "slow down", map[string]string{"retry-after-ms": "1500", "Retry-After": "9"}), 1500 * time.Millisecond},
		{"500", allProviders, errStep(500, "", "boom", nil), 0},
		{"503", allProviders, errStep(503, "", "unavailable", nil), 0},
		{"529 overloaded", []string{ProviderAnthropic}, errStep(529, "overloaded_error", "Overloaded", nil), 0},
		{"overloaded event before text", []string{ProviderAnthropic}, pt.Step{StreamError: &pt.StreamError{Type: "overloaded_error", Message: "Overloaded"}}, 0},
		{"server_error event before text", []string{ProviderOpenAI, ProviderOpenAIResponses}, pt.Step{StreamError: &pt.StreamError{Type: "server_error", Message: "oops"}}, 0},
		{"dropped before any text", allProviders, pt.Step{Drop: true}, 0},
		{"cut before any text", allProviders, pt.Step{Cut: true}, 0},
	} {
		for _, prov := range tc.providers {
			t.Run(tc.name+"/"+prov, func(t *testing.T) {
				h := newHarness(t, prov, tc.first, okStep)
				r, deltas, err := h.stream(t, hello())
				if err != nil {
					t.Fatal(err)
				}
				if r.Text != "fine" || !reflect.DeepEqual(deltas, []string{"fine"}) {
					t.Fatalf("text %q deltas %q", r.Text, deltas)
				}
				waits := h.clock.Waits()
				if len(waits) != 1 || len(h.srv.Requests()) != 2 {
					t.Fatalf("waits %v, %d requests", waits, len(h.srv.Requests()))
				}
				if tc.wait != 0 && waits[0] != tc.wait {
					t.Fatalf("waited %v, want %v", waits[0], tc.wait)
				}
				if tc.wait == 0 && (waits[0] < 250*time.Millisecond || waits[0] > 500*time.Millisecond) {
					t.Fatalf("backoff %v outside [250ms, 500ms]", waits[0])
				}
			})
		}
	}
}

// TestGivesUpWithAClearError: the bounded retries end in an error naming
// the provider, what failed and the tries; failures a retry cannot mend
// are not retried at all.
func TestGivesUpWithAClearError(t *testing.T) {
	four := func(s pt.Step) []pt.Step { return []pt.Step{s, s, s, s, okStep} }
	for _, tc := range []struct {
		name      string
		providers []string
		steps     []pt.Step
		requests  int
		want      []string
	}{
		{"overloaded 529", []string{ProviderAnthropic}, four(errStep(529, "overloaded_error", "Overloaded", nil)), 4,
			[]string{"anthropic: overloaded after 4 tries: Overloaded"}},
		{"500 four times", allProviders, four(errStep(500, "", "the backend fell over", nil)), 4,
			[]string{"server error (500) after 4 tries: the backend fell over"}},
		{"429 four times", allProviders, four(errStep(429, "", "quota", nil)), 4,
			[]string{"rate limited (429) after 4 tries: quota"}},
		{"Retry-After past the bound", allProviders, four(errStep(429, "", "come back tomorrow", map[string]string{"Retry-After": "86400"})), 1,
			[]string{"rate limited (429)", "past the", "come back tomorrow"}},
		{"refused model name", allProviders, []pt.Step{errStep(404, "not_found_error", "The model `gpt-nope` does not exist", nil), okStep}, 1,
			[]string{`refused the request for model "test-model" (404)`, "The model `gpt-nope` does not exist"}},
		{"bad request", allProviders, []pt.Step{errStep(400, "invalid_request_error", "max_tokens: too large", nil), okStep}, 1,
			[]string{"(400): max_tokens: too large"}},
		{"refused key", allProviders, []pt.Step{errStep(401, "authentication_error", "invalid x-api-key", nil), okStep}, 1,
			[]string{"refused the key from", "API_KEY (401): invalid x-api-key"}},
		{"non-JSON reply", allProviders, []pt.Step{{Raw: &pt.RawReply{Status: 200, ContentType: "text/html", Body: "<html>captive portal</html>"}}, okStep}, 1,
			[]string{"did not answer with an event stream", `"text/html"`, "captive portal"}},
		{"non-JSON error reply", allProviders, []pt.Step{{Raw: &pt.RawReply{Status: 502, ContentType: "text/html", Body: "<html>bad gateway</html>"}}, okStep, okStep, okStep}, 2,
			nil}, // retried (5xx), then succeeds: checked below
		{"malformed SSE", allProviders, []pt.Step{{Malformed: true}, okStep}, 1,
			[]string{"malformed stream event"}},
		{"dropped after text", allProviders, []pt.Step{{Text: []string{"I was say"}, Drop: true}, okStep}, 1,
			[]string{"dropped mid-stream after text arrived", "not retried"}},
		{"cut after text", allProviders, []pt.Step{{Text: []string{"I was say"}, Cut: true}, okStep}, 1,
			[]string{"dropped mid-stream after text arrived", "the stream ended before the reply was complete"}},
		{"malformed after text", allProviders, []pt.Step{{Text: []string{"I was say"}, Malformed: true}, okStep}, 1,
			[]string{"malformed stream event (not JSON) after text arrived", "not retried"}},
		{"error event after text", []string{ProviderAnthropic, ProviderOpenAI, ProviderOpenAIResponses}, []pt.Step{{Text: []string{"I was say"}, StreamError: &pt.StreamError{Type: "overloaded_error", Message: "Overloaded"}}, okStep}, 1,
			[]string{"reported an error after text arrived", "Overloaded"}},
	} {
		for _, prov := range tc.providers {
			t.Run(tc.name+"/"+prov, func(t *testing.T) {
				h := newHarness(t, prov, tc.steps...)
				_, _, err := h.stream(t, hello())
				if got := len(h.srv.Requests()); got != tc.requests {
					t.Errorf("%d requests, want %d", got, tc.requests)
				}
				if tc.want == nil {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				if err == nil {
					t.Fatal("no error")
				}
				mustContain(t, err.Error(), append([]string{prov + ": "}, tc.want...)...)
				if strings.HasPrefix(tc.name, "malformed") && strings.Contains(err.Error(), "dropped") {
					t.Errorf("an undecodable event reported as a dropped connection: %v", err)
				}
				var pe *Error
				if !errors.As(err, &pe) || pe.Provider != prov || pe.Tries != tc.requests {
					t.Fatalf("error %#v is not a *providers.Error of %d tries", err, tc.requests)
				}
			})
		}
	}
}

// TestKeyNeverInErrors: a server that echoes the request headers (and so
// the key) into its error bodies, in every failure path.
func TestKeyNeverInErrors(t *testing.T) {
	echo := func(status int) pt.Step {
		return pt.Step{Error: &pt.ErrorReply{Status: status, Message: "denied", EchoHeaders: true}}
	}
	for _, prov := range allProviders {
		for _, steps := range [][]pt.Step{
			{echo(401)}, {echo(404)}, {echo(500), echo(500), echo(500), echo(500)},
			{{StreamError: &pt.StreamError{Type: "invalid_request_error", Message: "bad " + testKey}}},
			{{Raw: &pt.RawReply{Status: 200, ContentType: "text/plain", Body: "your key is " + testKey}}},
		} {
			h := newHarness(t, prov, steps...)
			_, _, err := h.stream(t, hello())
			if err == nil {
				t.Fatalf("%s: no error", prov)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "7f3a9c") {
				t.Fatalf("%s: the key leaked into the error: %s", prov, err)
			}
			if !strings.Contains(err.Error(), "[REDACTED]") && steps[0].Error != nil {
				t.Fatalf("%s: the echo was not scrubbed but dropped: %s", prov, err)
			}
		}
	}
}

// TestErrorBodyIsBounded: a huge error body is read only up to a bound,
// and the error quotes a bounded part of it.
func TestErrorBodyIsBounded(t *testing.T) {
	huge := strings.Repeat("x", 4<<20)
	for _, prov := range allProviders {
		h := newHarness(t, prov, pt.Step{Error: &pt.ErrorReply{Status: 400, Body: huge}})
		_, _, err := h.stream(t, hello())
		if err == nil || len(err.Error()) > 2*maxQuoted {
			t.Fatalf("%s: error of %d bytes", prov, len(err.Error()))
		}
	}
}

// TestCancelStopsAStep: cancelling the context ends a slow stream at once
// (the server is still between two events),
// with an error that says so and unwraps to context.Canceled; there is no
// retry.
func TestCancelStopsAStep(t *testing.T) {
	for _, prov := range allProviders {
		t.Run(prov, func(t *testing.T) {
			h := newHarness(t, prov, pt.Step{Text: []string{"a", "b", "c", "d"}, ChunkDelayMS: 10_000}, okStep)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := h.p.Stream(ctx, hello(), nil)
				done <- err
			}()
			wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer wcancel()
			if err := h.srv.WaitRequests(wctx, 1); err != nil {
				t.Fatal(err)
			}
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancelled") {
					t.Fatalf("err = %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the step did not end within 10s of cancel")
			}
			if n := len(h.srv.Requests()); n != 1 {
				t.Fatalf("%d requests after cancel", n)
			}
		})
	}
}
