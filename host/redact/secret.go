package redact

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
)

// Secret is one value that must not appear in any view. Source says where it
// was found ("arg:headers.Authorization", "binding:GITHUB_TOKEN",
// "error:url.userinfo") and is safe to log; Target names it in the marker
// <redacted:TARGET> that replaces it.
type Secret struct {
	Value  string
	Source string
	Target string
}

// collector gathers secrets without duplicates.
type collector struct {
	out  []Secret
	seen map[Secret]bool
}

// newCollector's set is made on the first secret: most calls have none.
func newCollector() *collector { return &collector{} }

func (c *collector) add(value, source, target string) {
	if strings.TrimSpace(value) == "" {
		return
	}
	s := Secret{Value: value, Source: source, Target: cleanTarget(target)}
	if c.seen == nil {
		c.seen = map[Secret]bool{}
	}
	if !c.seen[s] {
		c.seen[s] = true
		c.out = append(c.out, s)
	}
}

// addEncoded adds a value as it appears in a URL and, if different, decoded.
func (c *collector) addEncoded(raw, source, target string, unescape func(string) (string, error)) {
	c.add(raw, source, target)
	if dec, err := unescape(raw); err == nil && dec != raw {
		c.add(dec, source, target)
	}
}

// authSchemes are HTTP authorization schemes whose credential follows them.
var authSchemes = map[string]bool{
	"bearer": true, "basic": true, "token": true, "digest": true, "negotiate": true,
	"ntlm": true, "apikey": true, "sso-key": true, "aws4-hmac-sha256": true, "hoba": true,
}

// addCredential adds an authorization-like value whole and, when it starts
// with a scheme, the credential after it; a Basic credential is also
// decoded so "user:pass" and "pass" are caught where a tool prints them.
func (c *collector) addCredential(value, source, target string) {
	value = strings.TrimSpace(value)
	c.add(value, source, target)
	scheme, rest, ok := strings.Cut(value, " ")
	if !ok || !authSchemes[strings.ToLower(scheme)] {
		return
	}
	cred := strings.TrimSpace(rest)
	c.add(cred, source, target)
	if f := strings.Fields(cred); len(f) > 1 {
		c.add(f[0], source, target)
		c.add(scheme+" "+f[0], source, target)
	}
	if strings.EqualFold(scheme, "basic") {
		if dec, err := base64.StdEncoding.DecodeString(strings.Fields(cred + " ")[0]); err == nil {
			c.addUserPass(string(dec), source, target)
		}
	}
}

// addUserPass adds "user:pass" and the password part.
func (c *collector) addUserPass(userpass, source, target string) {
	c.add(userpass, source, target)
	if _, pass, ok := strings.Cut(userpass, ":"); ok {
		c.add(pass, source, target)
	}
}

// sorted returns the secrets in a stable order. They are distinct, so the
// order is total and any sort gives it.
func (c *collector) sorted() []Secret {
	slices.SortFunc(c.out, func(a, b Secret) int {
		if n := strings.Compare(a.Source, b.Source); n != 0 {
			return n
		}
		if n := strings.Compare(a.Target, b.Target); n != 0 {
			return n
		}
		return strings.Compare(a.Value, b.Value)
	})
	return c.out
}

// cleanTarget keeps a marker readable and unambiguous: only name-like bytes,
// at most 64 of them.
func cleanTarget(t string) string {
	var b strings.Builder
	for i := 0; i < len(t) && b.Len() < 64; i++ {
		ch := t[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("_.:-", ch) >= 0 {
			b.WriteByte(ch)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "secret"
	}
	return b.String()
}

var (
	pathUnescape  = url.PathUnescape
	queryUnescape = url.QueryUnescape
)
