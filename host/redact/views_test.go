package redact

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"demiurge.dev/host/internal/jsonenc"
)

// allText is every view rendered as text, for "does X appear anywhere".
func allText(t testing.TB, v Views) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(v.Model.String() + "\n" + v.Card.Title + "\n" + v.Card.Args + "\n" + v.Card.Body + "\n")
	for _, m := range []map[string]any{v.Event.Map(), v.Record(), v.Debug()} {
		j, err := jsonenc.Append(nil, m, false)
		if err != nil {
			t.Fatalf("view does not serialise: %v", err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestSecretsNeverAppearInAnyView runs one secret through each way it can
// reach a call and each place a result can echo it.
func TestSecretsNeverAppearInAnyView(t *testing.T) {
	const secret = "Zq9-s3cret-VALUE-77"
	echo := func(s string) string { return "line one\nthe value is " + s + " and again:" + s + "\n" }
	for _, tc := range []struct {
		name    string
		args    map[string]any
		bound   map[string]string
		errText string
		source  string // a source that must be listed in the event
	}{
		{"password field", map[string]any{"user": "bob", "password": secret}, nil, "", "arg:password"},
		{"nested header", map[string]any{"request": map[string]any{"headers": map[string]any{"Authorization": "Bearer " + secret}}}, nil, "", "arg:request.headers.Authorization"},
		{"header list", map[string]any{"headers": []any{"Accept: */*", "Authorization: token " + secret}}, nil, "", "arg:headers[1]:header.Authorization"},
		{"url userinfo", map[string]any{"url": "https://deploy:" + secret + "@example.com/x"}, nil, "", "arg:url:url.userinfo"},
		{"url query", map[string]any{"url": "https://example.com/x?access_token=" + secret}, nil, "", "arg:url:url.query.access_token"},
		{"mysql option", map[string]any{"command": "mysql -u root -p" + secret + " app"}, nil, "", "arg:command:option.-p"},
		{"long option", map[string]any{"command": "tool --api-key " + secret}, nil, "", "arg:command:option.api-key"},
		{"argv", map[string]any{"argv": []any{"sshpass", "-p", secret, "ssh", "h"}}, nil, "", "arg:argv:option.-p"},
		{"binding", map[string]any{"command": "make release"}, map[string]string{"RELEASE_TOKEN": secret}, "", "binding:RELEASE_TOKEN"},
		{"error text only", map[string]any{"path": "x"}, nil, "connect to redis://:" + secret + "@cache:6379 refused", "error:url.userinfo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := Raw{
				Tool: "terminal", CallID: "call_1", Args: tc.args, IsError: tc.errText != "",
				Content:          echo(secret),
				ModelOutput:      echo(secret),
				DisplayOutput:    echo(secret),
				HasModelOutput:   true,
				HasDisplayOutput: true,
				Structured:       map[string]any{"stdout": echo(secret), "list": []any{secret, 1.0}, "password": secret},
				ErrorText:        tc.errText,
			}
			v := Make(raw, Discover(tc.args, tc.bound))
			if v.Failed {
				t.Fatal("redaction failed")
			}
			text := allText(t, v)
			for _, leak := range []string{secret, "s3cret-VALUE"} {
				if strings.Contains(text, leak) {
					t.Fatalf("%q leaked into a view:\n%s", leak, text)
				}
			}
			if !strings.Contains(v.Model.String(), "the value is <redacted:") {
				t.Errorf("model view lost its text or marker: %q", v.Model.String())
			}
			if !reflect.DeepEqual(v.Event.Get("secret_sources"), []string(nil)) {
				if srcs, _ := v.Event.Get("secret_sources").([]string); !contains(srcs, tc.source) {
					t.Errorf("event sources %v lack %q", srcs, tc.source)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func TestViewsShape(t *testing.T) {
	raw := Raw{
		Tool: "read_file", CallID: "c7", Args: map[string]any{"path": "notes.txt", "token": "tok-12345678"},
		Content: "hello world from the file", Structured: map[string]any{"size": 25},
	}
	v := Make(raw, nil)
	if v.Failed {
		t.Fatal("redaction failed")
	}
	if v.Model.String() != raw.Content || v.Card.Body != raw.Content || v.Card.Title != "read_file" {
		t.Errorf("model/card = %q / %+v", v.Model.String(), v.Card)
	}
	if v.Card.Args != `{"path":"notes.txt","token":"<redacted>"}` {
		t.Errorf("card args %s", v.Card.Args)
	}
	ev, err := jsonenc.Append(nil, v.Event.Map(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, value := range []string{"hello world", "notes.txt", "tok-12345678"} {
		if strings.Contains(string(ev), value) {
			t.Errorf("event carries the value %q: %s", value, ev)
		}
	}
	if v.Event.Get("tool") != "read_file" || v.Event.Get("call_id") != "c7" || v.Event.Get("is_error") != false ||
		!reflect.DeepEqual(v.Event.Get("arg_keys"), []string{"path", "token"}) ||
		v.Event.Get("sizes").(map[string]any)["content_bytes"] != 25 {
		t.Errorf("event metadata: %s", ev)
	}
	if v.Record()["content"] != raw.Content || v.Record()["args_preview"] != v.Card.Args || v.Record()["structured"] == nil {
		t.Errorf("record: %+v", v.Record())
	}
	fps := v.Debug()["secret_fingerprints"].([]map[string]string)
	if len(fps) != 1 || fps[0]["source"] != "arg:token" || !strings.HasPrefix(fps[0]["fingerprint"], "hmac-sha256:") ||
		fps[0]["fingerprint"] != fingerprint("tok-12345678") || fingerprint("tok-12345678") == fingerprint("tok-12345679") {
		t.Errorf("debug fingerprints: %+v", fps)
	}
}

func TestErrorResultViews(t *testing.T) {
	v := Make(Raw{Tool: "fetch", IsError: true, ErrorText: "GET https://x/?api_key=k-9999999 failed: 401"}, nil)
	if v.Failed || !strings.HasPrefix(v.Model.String(), "GET https://x/?api_key=<redacted:") || strings.Contains(v.Model.String(), "k-9999999") ||
		v.Card.Title != "fetch (error)" ||
		v.Card.Body != v.Model.String() || v.Record()["error"] != v.Model.String() {
		t.Fatalf("error views: %+v", v)
	}
}

func TestInvalidUTF8IsReplacedNotFailed(t *testing.T) {
	v := Make(Raw{Tool: "t", Content: "ok \xff\xfe bytes"}, nil)
	if v.Failed || v.Model.String() != "ok \uFFFD bytes" {
		t.Fatalf("got %+v", v)
	}
}

func TestRedactionFailureGivesFixedViews(t *testing.T) {
	raw := Raw{Tool: "terminal", CallID: "c1", Args: map[string]any{"password": "pw-123456"},
		Content: "raw output pw-123456", ErrorText: "raw error"}
	for _, tc := range []struct {
		name  string
		stage string // panic here via the hook
		raw   func(Raw) Raw
	}{
		{"panic in discovery", "discover", nil},
		{"panic in a text path", "text", nil},
		{"panic before marshal", "marshal", nil},
		{"structured value that cannot be redacted", "", func(r Raw) Raw {
			r.Structured = map[string]any{"ch": make(chan int)}
			return r
		}},
		{"structured value that cannot be marshalled", "", func(r Raw) Raw {
			r.Structured = map[string]any{"n": math.NaN()}
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.stage != "" {
				failureHook = func(stage string) {
					if stage == tc.stage {
						panic("injected failure at " + stage)
					}
				}
				defer func() { failureHook = nil }()
			}
			in := raw
			if tc.raw != nil {
				in = tc.raw(raw)
			}
			v := Make(in, nil)
			if !v.Failed {
				t.Fatal("failure not reported")
			}
			want := failedViews()
			if !reflect.DeepEqual(v, want) {
				t.Fatalf("views %+v, want the fixed failed result %+v", v, want)
			}
			text := allText(t, v)
			for _, leak := range []string{"raw output", "raw error", "pw-123456", "terminal"} {
				if strings.Contains(text, leak) {
					t.Fatalf("failed views carry %q", leak)
				}
			}
			if strings.Count(text, FailedText) < 7 {
				t.Fatalf("not every view says %s:\n%s", FailedText, text)
			}
		})
	}
}

func TestFailedViewsAreIndependentCopies(t *testing.T) {
	a := failedViews()
	a.Event.Set("x", 1)
	if _, ok := failedViews().Event.Map()["x"]; ok {
		t.Fatal("failed views share a map")
	}
}

// FuzzMake feeds arbitrary arguments and output through Make: it must not
// fail on any input, and a bound secret must never survive into a view.
func FuzzMake(f *testing.F) {
	f.Add(`{"command":"mysql -pX"}`, "out", 3)
	f.Add(`{"url":"https://a:b@c/?token=d","password":"p"}`, "\xff\xfe", 0)
	f.Add(`{"a":[{"name":"Authorization","value":"Basic dXNlcjpwYXNz"}]}`, "Authorization: Basic dXNlcjpwYXNz", 10)
	f.Add(`{}`, "", 0)
	const bound = "FUZZ-bound-secret-0123"
	f.Fuzz(func(t *testing.T, argsJSON, content string, at int) {
		var args map[string]any
		if json.Unmarshal([]byte(argsJSON), &args) != nil {
			args = map[string]any{"raw": argsJSON}
		}
		if at < 0 {
			at = -at
		}
		at %= len(content) + 1
		content = content[:at] + bound + content[at:]
		v := Make(Raw{Tool: "t", Args: args, Content: content, ErrorText: content, IsError: at%2 == 0,
			Structured: map[string]any{"out": content}}, Discover(args, map[string]string{"B": bound}))
		if v.Failed {
			t.Fatalf("redaction failed on args %q content %q", argsJSON, content)
		}
		if strings.Contains(allText(t, v), bound) {
			t.Fatalf("bound secret leaked: %+v", v)
		}
	})
}

// TestNoSecretsListsAreEmptyNotAbsent: a call without secrets has empty
// secret_sources and secret_fingerprints lists, written as [] (not null),
// and a reader that appends to one call's list does not change another's
// (they share one empty value).
func TestNoSecretsListsAreEmptyNotAbsent(t *testing.T) {
	raw := Raw{Tool: "read_file", CallID: "c1", Args: map[string]any{"path": "a.txt"}, Content: "plain text"}
	first, second := Make(raw, nil), Make(raw, nil)
	for name, v := range map[string]any{
		"event":              first.Event.Get("secret_sources"),
		"record":             first.Record()["secret_sources"],
		"debug":              first.Debug()["secret_sources"],
		"debug fingerprints": first.Debug()["secret_fingerprints"],
	} {
		b, err := json.Marshal(v)
		if err != nil || string(b) != "[]" {
			t.Errorf("%s: %s (%v), want []", name, b, err)
		}
	}
	srcs := first.Event.Get("secret_sources").([]string)
	_ = append(srcs, "changed")
	fps := first.Debug()["secret_fingerprints"].([]map[string]string)
	_ = append(fps, map[string]string{"source": "changed"})
	if got := second.Event.Get("secret_sources").([]string); len(got) != 0 {
		t.Errorf("second call's secret_sources = %q after the first's was appended to", got)
	}
	if got := second.Debug()["secret_fingerprints"].([]map[string]string); len(got) != 0 {
		t.Errorf("second call's secret_fingerprints = %v after the first's was appended to", got)
	}
	// With a secret both lists say where it was found.
	withSecret := Make(raw, []Secret{{Source: "binding", Target: "TOKEN", Value: "tk-0123456789"}})
	if got := withSecret.Event.Get("secret_sources").([]string); len(got) != 1 || got[0] != "binding" {
		t.Errorf("secret_sources with a secret = %q, want [binding]", got)
	}
	if got := withSecret.Debug()["secret_fingerprints"].([]map[string]string); len(got) != 1 || got[0]["source"] != "binding" {
		t.Errorf("secret_fingerprints with a secret = %v", got)
	}
}
