package netpolicy

import (
	"context"
	"net/netip"
	"strings"
	"testing"
)

// FuzzCheck: Check never panics; an accepted literal never classifies as
// refused; an accepted target re-parses to itself; OriginSummary never
// shows userinfo, path, query or fragment.
func FuzzCheck(f *testing.F) {
	for _, form := range refusedForms {
		f.Add(strings.ReplaceAll(form, "{P}", "8080"))
	}
	for _, s := range []string{
		"https://example.com/a?b=c#d", "http://8.8.8.8/", "http://[2606:4700::1111]:8443/x",
		"http://xn--bcher-kva.de/", "http://bücher.de/", "http://a.b.c.d.e/", "http://0x/", "http://1.2.3.0x/",
		"HTTP://EXAMPLE.COM:80/", "http://[::ffff:8.8.8.8]/", "http://user:pass@example.com:8080/path?q#f",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		summary := OriginSummary(raw)
		if i := strings.Index(summary, "://"); i >= 0 {
			if rest := summary[i+3:]; strings.ContainsAny(rest, "/?#@") {
				t.Fatalf("OriginSummary(%q) = %q shows more than the origin", raw, summary)
			}
		}
		tg, err := Check(raw)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "refused ") {
				t.Fatalf("Check(%q) error %v is not a refusal", raw, err)
			}
			return
		}
		if tg.IsLiteral() {
			if bad, class := Classify(tg.Addr); bad {
				t.Fatalf("Check(%q) accepted %s of class %s", raw, tg.Addr, class)
			}
		}
		if tg.Scheme != "http" && tg.Scheme != "https" {
			t.Fatalf("Check(%q) accepted scheme %q", raw, tg.Scheme)
		}
		again, err := Check(tg.URL())
		if err != nil || again.Origin() != tg.Origin() {
			t.Fatalf("Check(%q) = %q, which re-checks as %q, %v", raw, tg.URL(), again.Origin(), err)
		}
		if strings.Contains(tg.Origin(), "@") {
			t.Fatalf("origin %q has userinfo", tg.Origin())
		}
	})
}

// FuzzResolve: whatever a resolver answers, Resolve never returns a refused
// address and refuses the target when any answer is refused.
func FuzzResolve(f *testing.F) {
	f.Add([]byte{93, 184, 215, 14}, []byte{127, 0, 0, 1})
	f.Add([]byte{8, 8, 8, 8}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 169, 254, 169, 254})
	f.Add([]byte{0x26, 0x06, 0x47, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x11}, []byte{})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var answers []netip.Addr
		for _, raw := range [][]byte{a, b} {
			if addr, ok := netip.AddrFromSlice(raw); ok {
				answers = append(answers, addr)
			}
		}
		strs := make([]string, len(answers))
		anyBad := false
		for i, x := range answers {
			strs[i] = x.String()
			if bad, _ := Classify(x); bad {
				anyBad = true
			}
		}
		p := New(Options{Resolver: mapResolver{"fuzz.test": strs}})
		tg, err := p.Check("https://fuzz.test/")
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Resolve(context.Background(), tg)
		if err != nil {
			return
		}
		if anyBad || len(answers) == 0 {
			t.Fatalf("Resolve accepted %v (answers %v)", got, answers)
		}
		for _, x := range got {
			if bad, class := Classify(x); bad {
				t.Fatalf("Resolve returned %s of class %s", x, class)
			}
		}
	})
}
