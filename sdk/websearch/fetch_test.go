package websearch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"demiurge.dev/shared/netpolicy"
)

// loopback is the URL policy's test hook: the loopback servers of these
// tests are refused by the production policy.
var loopback = netpolicy.Options{AllowLoopbackForTests: true}

func get(t *testing.T, url string, opts netpolicy.Options) (*Response, string, string) {
	t.Helper()
	resp, fail := example.Fetch(context.Background(), NewHTTPClient(opts), 300*time.Millisecond, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err == nil {
			req.Header.Set("Authorization", "Bearer "+testKey)
		}
		return req, err
	})
	if fail == nil {
		return resp, "", ""
	}
	if !fail.IsError || resp != nil || strings.Contains(fail.Content, testKey) {
		t.Fatalf("a failure must be an error result alone, without the key: %+v %+v", resp, fail)
	}
	return nil, fail.ErrorCode, fail.Content
}

func TestFetchReadsAnyHTTPAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":"slow down"}`))
	}))
	defer srv.Close()
	resp, code, msg := get(t, srv.URL, loopback)
	if code != "" {
		t.Fatalf("got %s: %s", code, msg)
	}
	if resp.Status != 429 || resp.Header.Get("Retry-After") != "3" || string(resp.Body) != `{"error":"slow down"}` {
		t.Fatalf("got %+v", resp)
	}
}

func TestFetchSoftFailures(t *testing.T) {
	slow := make(chan struct{})
	t.Cleanup(func() { close(slow) })
	cases := []struct {
		name     string
		answer   http.HandlerFunc
		code     string
		contains string
	}{
		{"too large", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"results":[` + strings.Repeat(" ", MaxBody) + `]}`))
		}, "bad_response", "larger than 2 MiB"},
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/steal", http.StatusFound)
		}, "bad_response", "never sent after a redirect"},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		}, "timeout", "Example Search did not answer in time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.answer)
			defer srv.Close()
			if _, code, msg := get(t, srv.URL, loopback); code != tc.code || !strings.Contains(msg, tc.contains) {
				t.Fatalf("got %q %q; want %q containing %q", code, msg, tc.code, tc.contains)
			}
		})
	}
}

func TestFetchUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	if _, code, msg := get(t, url, loopback); code != "unreachable" {
		t.Fatalf("got %q: %s", code, msg)
	}
}

func TestFetchBuildFailure(t *testing.T) {
	if _, code, msg := get(t, "http://a b", loopback); code != "bad_response" || !strings.Contains(msg, "could not be built") {
		t.Fatalf("got %q: %s", code, msg)
	}
}

// TestURLPolicyIsInThePath: under the production policy a loopback
// endpoint is refused by shared/netpolicy and never contacted, and the
// message names neither the address nor the path.
func TestURLPolicyIsInThePath(t *testing.T) {
	contacted := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { contacted <- struct{}{} }))
	defer srv.Close()
	_, code, msg := get(t, srv.URL+"/secret/path", netpolicy.Options{})
	if code != "refused" || !strings.Contains(msg, "URL policy refused") || strings.Contains(msg, "/secret/path") {
		t.Fatalf("got %q: %s", code, msg)
	}
	select {
	case <-contacted:
		t.Fatal("the loopback server was contacted")
	default:
	}
}

func TestFetchCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, fail := example.Fetch(ctx, NewHTTPClient(loopback), time.Second, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:1/", nil)
	})
	if fail == nil || fail.ErrorCode != "cancelled" {
		t.Fatalf("got %+v", fail)
	}
}
