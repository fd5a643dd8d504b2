package providers

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
	"go.uber.org/goleak"
)

// The genai SDK links opencensus, whose package init starts a worker
// that lives as long as the process.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

// testKey is recognisable, so a test can prove it never leaks.
const testKey = "sk-test-RECOGNISABLE-7f3a9c-key"

// serverKind is the wire format each provider speaks.
var serverKind = map[string]string{
	ProviderOpenAI:           providertest.KindOpenAI,
	ProviderOpenAICompatible: providertest.KindOpenAI,
	ProviderOpenAIResponses:  providertest.KindOpenAIResponses,
	ProviderAnthropic:        providertest.KindAnthropic,
	ProviderGemini:           providertest.KindGemini,
}

// allProviders are the providers every wire-level case runs against.
var allProviders = []string{ProviderOpenAI, ProviderOpenAIResponses, ProviderAnthropic, ProviderGemini}

// fakeClock records the retries' waits instead of sleeping.
type fakeClock struct {
	mu     sync.Mutex
	waits  []time.Duration
	now    time.Time
	sleeps func(context.Context, time.Duration) error
}

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

func baseURL(provider, srvURL string) string {
	if provider == ProviderOpenAI || provider == ProviderOpenAICompatible || provider == ProviderOpenAIResponses {
		return srvURL + "/v1"
	}
	return srvURL
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// keyEnv holds testKey under every default variable.
var keyEnv = env(map[string]string{"OPENAI_API_KEY": testKey, "ANTHROPIC_API_KEY": testKey, "GEMINI_API_KEY": testKey})

type harness struct {
	p     Provider
	srv   *providertest.Server
	clock *fakeClock
}

// newHarness is provider p against a fresh scripted server, with a clock
// that does not sleep.
func newHarness(t *testing.T, provider string, steps ...providertest.Step) harness {
	t.Helper()
	srv := providertest.NewServer(serverKind[provider], steps)
	t.Cleanup(srv.Close)
	clock := &fakeClock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	p, err := New(Config{Provider: provider, Name: "test-model", BaseURL: baseURL(provider, srv.URL)}, keyEnv,
		&http.Client{Transport: &http.Transport{}}, WithClock(clock.sleep, func() time.Time { return clock.now }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeIdle(p) })
	return harness{p: p, srv: srv, clock: clock}
}

// closeIdle drops the client's idle connections, so goleak sees none.
func closeIdle(p Provider) {
	if b, ok := p.(interface{ client() *http.Client }); ok {
		b.client().CloseIdleConnections()
	}
}

// stream runs one step and returns the reply, the deltas and the error.
func (h harness) stream(t *testing.T, req Request) (Reply, []string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var deltas []string
	r, err := h.p.Stream(ctx, req, func(d Delta) {
		if d.Retry == nil { // retries: TestRetryIsReported
			deltas = append(deltas, d.Text)
		}
	})
	if ctx.Err() != nil {
		t.Fatalf("step did not end within 20s: %v", err)
	}
	return r, deltas, err
}

func hello() Request {
	return Request{System: "be brief", Messages: []Message{{Role: RoleUser, Text: "hello"}}}
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%q does not contain %q", got, w)
		}
	}
}
