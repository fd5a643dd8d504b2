package providers

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	pt "demiurge.dev/host/providers/providertest"
)

// TestCaptureKeepsABoundedBody: of a 4 MiB error body, the transport reads
// and keeps at most maxErrorBody; the SDK above it sees the same bounded
// copy. A 2xx reply that is not an event stream is cut the same way.
func TestCaptureKeepsABoundedBody(t *testing.T) {
	huge := strings.Repeat("y", 4<<20)
	for _, step := range []pt.Step{
		{Error: &pt.ErrorReply{Status: 500, Body: huge}},
		{Raw: &pt.RawReply{Status: 200, ContentType: "text/html", Body: huge}},
	} {
		srv := pt.NewServer(pt.KindOpenAI, []pt.Step{step})
		hc := wrapClient(&http.Client{Transport: &http.Transport{}})
		a := &attempt{}
		req, _ := http.NewRequestWithContext(withAttempt(context.Background(), a), "POST", srv.URL+"/v1/chat/completions", strings.NewReader("{}"))
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		seen, _ := io.ReadAll(res.Body)
		res.Body.Close()
		hc.CloseIdleConnections()
		srv.Close()
		if len(a.body) != maxErrorBody || len(seen) > maxErrorBody {
			t.Fatalf("status %d: kept %d bytes, the SDK saw %d; bound %d", res.StatusCode, len(a.body), len(seen), maxErrorBody)
		}
		if step.Raw != nil && (!a.notStream || len(seen) != 0) {
			t.Fatalf("a non-stream 200 was passed on (%d bytes)", len(seen))
		}
	}
}
