// Package websearchtest holds the checks every web_search provider
// package runs against itself: a call that never shows the key, the
// manifest against the toolset, the URL policy in the path, and the bounds
// of a parsed answer. Only tests import it.
package websearchtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"demiurge.dev/sdk"
	"demiurge.dev/sdk/websearch"
)

// Call runs tool with args, the host having bound key under target (no
// binding when key is empty), and fails the test if secret shows anywhere
// the model or a record could see it.
func Call(t *testing.T, tool sdk.Tool, args, target, key, secret string) *sdk.Result {
	t.Helper()
	secrets := map[string]string{}
	if key != "" {
		secrets[target] = key
	}
	res, err := tool.Execute(&sdk.Context{Context: context.Background(), Secrets: secrets}, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	b, _ := json.Marshal(res.Structured)
	if strings.Contains(res.Content, secret) || strings.Contains(string(b), secret) {
		t.Fatalf("the API key leaked into the result: %s %s", res.Content, b)
	}
	return res
}

// CheckManifest compares package.json in the test's directory with the
// toolset: name, version, its one tool, and the one secret it reads.
func CheckManifest(t *testing.T, ts sdk.Toolset, target string) {
	t.Helper()
	name, version, tools := ts.Name, ts.Version, ts.Tools()
	b, err := os.ReadFile("package.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name, Version string
		Tools         []string
		Secrets       []struct{ Env, Target string }
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != name || m.Version != version || len(m.Tools) != 1 || m.Tools[0] != tools[0].Spec().Name {
		t.Fatalf("package.json says %+v; the toolset is %s %s with %s", m, name, version, tools[0].Spec().Name)
	}
	if len(m.Secrets) != 1 || m.Secrets[0].Target != target {
		t.Fatalf("package.json binds %+v; the plugin reads %s", m.Secrets, target)
	}
}

// CheckURLPolicy: under the production policy the provider is reached
// through shared/netpolicy, which refuses a loopback address, so the tool
// newTool makes for an endpoint on loopback never contacts it, and says so
// without naming the path.
func CheckURLPolicy(t *testing.T, newTool func(endpoint string) sdk.Tool, path, target, key string) {
	t.Helper()
	contacted := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { contacted <- struct{}{} }))
	defer srv.Close()
	res := Call(t, newTool(srv.URL+path), `{"query":"golang"}`, target, key, key)
	if res.ErrorCode != "refused" || !strings.Contains(res.Content, "URL policy refused") || strings.Contains(res.Content, path) {
		t.Fatalf("got %q: %s", res.ErrorCode, res.Content)
	}
	select {
	case <-contacted:
		t.Fatal("the loopback server was contacted")
	default:
	}
}

// CheckParsed is what a fuzzed parse must keep to: a result, bounded, and
// never a success from an HTTP error.
func CheckParsed(t *testing.T, status int, res *sdk.Result) {
	t.Helper()
	if res == nil || len(res.Content) > websearch.MaxContent+400 {
		t.Fatalf("unbounded or nil result")
	}
	if status != 200 && !res.IsError {
		t.Fatalf("HTTP %d became a success", status)
	}
}
