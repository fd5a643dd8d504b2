package policy

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"demiurge.dev/catalog"
)

func fetchSpec() catalog.ToolSpec {
	return catalog.ToolSpec{
		Name:     "web_extract",
		Effect:   catalog.EffectNetwork,
		Metadata: catalog.Metadata{Risk: catalog.RiskLow, Capability: "network.fetch", ApprovalPolicy: catalog.ApprovalAuto},
		Subjects: []catalog.Subject{{Kind: catalog.SubjectURL, Arg: "url"}},
	}
}

func TestAssessURL(t *testing.T) {
	for _, tc := range []struct {
		url      string
		approval catalog.ApprovalPolicy
		risk     catalog.Risk
		shown    string // the subject value a prompt shows
		reason   string // substring of some reason
		key      string // "" when no resource key is expected
	}{
		{"https://example.org/page?token=abc#frag", catalog.ApprovalPrompt, catalog.RiskMedium, "https://example.org", "fetches https://example.org (its addresses", "net:https://example.org"},
		{"HTTP://Example.ORG.:80/x", catalog.ApprovalPrompt, catalog.RiskMedium, "http://example.org", "fetches http://example.org", "net:http://example.org"},
		{"https://8.8.8.8:8443/dns", catalog.ApprovalPrompt, catalog.RiskMedium, "https://8.8.8.8:8443", "fetches https://8.8.8.8:8443", "net:https://8.8.8.8:8443"},
		{"http://user:hunter2@example.org/", catalog.ApprovalDeny, catalog.RiskHigh, "http://example.org", "embedded credentials", ""},
		{"ftp://example.org/file", catalog.ApprovalDeny, catalog.RiskHigh, "ftp://example.org", "only http and https", ""},
		{"file:///etc/passwd", catalog.ApprovalDeny, catalog.RiskHigh, "file:<no host>", "", ""},
		{"http://0x7f.1/admin", catalog.ApprovalDeny, catalog.RiskHigh, "http://127.0.0.1", "loopback", ""},
		{"http://2852039166/latest/meta-data/", catalog.ApprovalDeny, catalog.RiskHigh, "http://169.254.169.254", "metadata", ""},
		{"http://[::ffff:10.0.0.1]/", catalog.ApprovalDeny, catalog.RiskHigh, "http://[::ffff:10.0.0.1]", "private", ""},
		{"http://localhost:8080/", catalog.ApprovalDeny, catalog.RiskHigh, "http://localhost:8080", "loopback", ""},
		{"http://good.example\\@evil.example/", catalog.ApprovalDeny, catalog.RiskHigh, "http://<invalid host>", "backslash", ""},
		{"not a url", catalog.ApprovalDeny, catalog.RiskHigh, "<invalid url>", "", ""},
	} {
		got, err := Assess(fetchSpec(), fetchSpec().Metadata, map[string]any{"url": tc.url}, ws)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if got.Approval != tc.approval || got.Risk != tc.risk {
			t.Errorf("%s: %v/%v; want %v/%v (%q)", tc.url, got.Risk, got.Approval, tc.risk, tc.approval, got.Reasons)
		}
		if len(got.Subjects) != 1 || got.Subjects[0].Value != tc.shown {
			t.Errorf("%s: subjects %+v; want value %q", tc.url, got.Subjects, tc.shown)
		}
		joined := strings.Join(got.Reasons, "\n")
		if !strings.Contains(joined, tc.reason) {
			t.Errorf("%s: reasons %q; want %q", tc.url, got.Reasons, tc.reason)
		}
		for _, secret := range []string{"hunter2", "token=abc", "frag", "meta-data", "/admin", "/page", "/dns"} {
			if strings.Contains(joined, secret) || strings.Contains(got.Subjects[0].Value, secret) {
				t.Errorf("%s: %q shows %q before approval", tc.url, joined, secret)
			}
		}
		if tc.key == "" && len(got.ResourceKeys) != 0 || tc.key != "" && !slices.Equal(got.ResourceKeys, []string{tc.key}) {
			t.Errorf("%s: keys %q; want %q", tc.url, got.ResourceKeys, tc.key)
		}
	}
}

func TestAssessURLFingerprint(t *testing.T) {
	fp := func(u string) string {
		a, err := Assess(fetchSpec(), fetchSpec().Metadata, map[string]any{"url": u}, ws)
		if err != nil {
			t.Fatal(err)
		}
		return a.Fingerprint
	}
	// One normalised URL, one fingerprint: spelling does not matter.
	if fp("https://Example.org./a?b=1") != fp("https://example.org:443/a?b=1") {
		t.Error("two spellings of one URL have different fingerprints")
	}
	// Another page or query is another call.
	for _, other := range []string{"https://example.org/b?b=1", "https://example.org/a?b=2", "http://example.org/a?b=1"} {
		if fp(other) == fp("https://example.org/a?b=1") {
			t.Errorf("%s shares the fingerprint of https://example.org/a?b=1", other)
		}
	}
}

func TestAssessURLNeedsAString(t *testing.T) {
	if _, err := Assess(fetchSpec(), fetchSpec().Metadata, map[string]any{"url": 7}, ws); err == nil {
		t.Error("a non-string url was accepted")
	}
	if _, err := Assess(fetchSpec(), fetchSpec().Metadata, map[string]any{}, ws); err == nil {
		t.Error("a missing url was accepted")
	}
}

func TestCheckURL(t *testing.T) {
	// Only the .invalid name (RFC 6761: never resolves) is looked up; a
	// resolver that cannot answer in time is a DNS failure too.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for _, tc := range []struct {
		raw      string
		resolve  bool
		decision string
		class    string
		host     string
	}{
		{"https://example.org/a?b", false, "unresolved", "", "example.org"},
		{"http://0x7f.1/", false, "block", "loopback", "127.0.0.1"},
		{"http://8.8.8.8/x", false, "allow", "public", "8.8.8.8"},
		{"http://u:p@8.8.8.8/", false, "block", "userinfo", ""},
		{"https://nonexistent.invalid/", true, "block", "dns-failure", "nonexistent.invalid"},
		{"https://[2606:4700::1111]/", true, "allow", "public", "2606:4700::1111"},
	} {
		v := CheckURL(ctx, tc.raw, tc.resolve)
		if v.Decision != tc.decision || v.Class != tc.class || v.Host != tc.host || len(v.Reasons) == 0 {
			t.Errorf("CheckURL(%q, %v) = %+v; want %s %s host %q", tc.raw, tc.resolve, v, tc.decision, tc.class, tc.host)
		}
		if strings.Contains(v.Origin, "/x") || strings.Contains(v.Origin, "u:p") {
			t.Errorf("CheckURL(%q) origin %q", tc.raw, v.Origin)
		}
	}
}

func TestPreviewArgsShowsOnlyOrigins(t *testing.T) {
	args := map[string]any{"url": "https://u:hunter2@Example.org/p?token=abc#f", "max_chars": 100}
	a, err := Assess(fetchSpec(), fetchSpec().Metadata, args, ws)
	if err != nil {
		t.Fatal(err)
	}
	got := a.PreviewArgs(args)
	if got["url"] != "https://example.org" || got["max_chars"] != 100 {
		t.Errorf("preview args %v", got)
	}
	if args["url"] != "https://u:hunter2@Example.org/p?token=abc#f" {
		t.Errorf("PreviewArgs changed the call's arguments: %v", args)
	}
	read, _ := Assess(readSpec(), readSpec().Metadata, map[string]any{"path": "a.txt"}, ws)
	if p := read.PreviewArgs(map[string]any{"path": "a.txt"}); p["path"] != "a.txt" {
		t.Errorf("a path subject's preview changed: %v", p)
	}
}

// FuzzAssessURL: any URL argument gives an assessment that is at least a
// prompt, shows nothing past the origin, and is denied when the URL policy
// refuses the URL itself.
func FuzzAssessURL(f *testing.F) {
	for _, s := range []string{
		"https://example.org/a?b#c", "http://u:p@example.org/", "http://0x7f.1/", "ftp://x/",
		"http://[::ffff:169.254.169.254]/", "http://a\\@b/", "http://①②⑦.0.0.1/", "", "http://",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		a, err := Assess(fetchSpec(), fetchSpec().Metadata, map[string]any{"url": raw}, ws)
		if err != nil {
			t.Fatalf("Assess(%q): %v", raw, err)
		}
		if a.Approval < catalog.ApprovalPrompt || a.Risk < catalog.RiskMedium {
			t.Fatalf("Assess(%q) = %v/%v; a fetch is at least medium/prompt", raw, a.Risk, a.Approval)
		}
		shown := a.Subjects[0].Value
		if i := strings.Index(shown, "://"); i >= 0 && strings.ContainsAny(shown[i+3:], "/?#@") {
			t.Fatalf("Assess(%q) shows %q", raw, shown)
		}
		if v := CheckURL(context.Background(), raw, false); v.Decision == "block" && a.Approval != catalog.ApprovalDeny {
			t.Fatalf("Assess(%q) = %v although the URL policy refuses it (%v)", raw, a.Approval, v.Reasons)
		}
	})
}
