package redact

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

var (
	urlRe = lazyRegexp("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]+")
	// headerRe finds credential headers anywhere, also inside a quoted
	// curl -H argument or in the middle of an error message.
	headerRe = lazyRegexp(`(?i)\b((?:proxy-)?authorization|(?:set-)?cookie|x-[a-z0-9-]*(?:token|key|secret|auth|password)[a-z0-9-]*)[ \t]*:[ \t]*([^\r\n"']+)`)
	// assignRe finds NAME=value (env assignments, form bodies, key=value logs).
	assignRe = lazyRegexp(`([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*("[^"\n]*"|'[^'\n]*'|[^\s&;,'"]+)`)
	// jsonPairRe finds "name": "value" in JSON text.
	jsonPairRe = lazyRegexp(`"([^"\\\n]{1,128})"[ \t]*:[ \t]*("(?:[^"\\\n]|\\.)*")`)
	// lineKeyRe finds "name: value" at the start of a line (YAML, headers).
	lineKeyRe = lazyRegexp(`(?m)^[ \t-]*([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:[ \t]+([^\r\n]+)$`)
)

// text finds secrets inside one string.
func (c *collector) text(source, s string) {
	if !mayHoldSecrets(s) {
		return
	}
	if strings.Contains(s, "://") {
		for _, u := range urlRe().FindAllString(s, -1) {
			c.url(source, u)
		}
	}
	if strings.Contains(s, ":") {
		for _, m := range headerRe().FindAllStringSubmatch(s, -1) {
			c.header(source, m[1], m[2])
		}
		for _, m := range jsonPairRe().FindAllStringSubmatch(s, -1) {
			if !isSecretName(m[1]) {
				continue
			}
			src := source + ":json." + m[1]
			c.add(m[2][1:len(m[2])-1], src, m[1]) // as written, escapes and all
			var dec string
			if json.Unmarshal([]byte(m[2]), &dec) == nil {
				c.addCredential(dec, src, m[1])
			}
		}
		for _, m := range lineKeyRe().FindAllStringSubmatch(s, -1) {
			if isSecretName(m[1]) {
				c.addCredential(unquote(strings.TrimSpace(m[2])), source+":line."+m[1], m[1])
			}
		}
	}
	if strings.Contains(s, "=") {
		for _, m := range assignRe().FindAllStringSubmatch(s, -1) {
			if isSecretName(m[1]) {
				c.addCredential(unquote(m[2]), source+":assign."+m[1], m[1])
			}
		}
	}
	if strings.Contains(s, "-") {
		c.command(source, s)
	}
}

// mayHoldSecrets is false for a string in which text can find nothing:
// every form it looks for needs one of ":" (URLs, headers, JSON and YAML
// pairs), "=" (assignments) or "-" (command options), and four bytes.
func mayHoldSecrets(s string) bool {
	return len(s) >= 4 && strings.ContainsAny(s, ":=-")
}

// url takes the password out of userinfo and the values of secret-named
// query and fragment parameters (OAuth puts access_token in the fragment).
func (c *collector) url(source, u string) {
	_, rest, _ := strings.Cut(u, "://")
	end := strings.IndexAny(rest, "/?#")
	authority := rest
	if end >= 0 {
		authority = rest[:end]
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user, pass, hasPass := strings.Cut(authority[:at], ":")
		switch {
		case hasPass && pass != "":
			c.addEncoded(pass, source+":url.userinfo", "url.password", pathUnescape)
			du, _ := pathUnescape(user)
			dp, err := pathUnescape(pass)
			if err != nil {
				dp = pass
			}
			// net/http turns userinfo into a Basic header; a tool that
			// prints its request shows this form.
			c.add(base64.StdEncoding.EncodeToString([]byte(du+":"+dp)), source+":url.userinfo", "url.basic")
		case len(user) >= 16: // https://TOKEN@host: a bare long user name is a token
			c.addEncoded(user, source+":url.userinfo", "url.user", pathUnescape)
		}
	}
	beforeFragment, fragment, _ := strings.Cut(rest, "#")
	_, query, _ := strings.Cut(beforeFragment, "?")
	params := query + "&" + fragment
	for _, pair := range strings.Split(params, "&") {
		name, value, ok := strings.Cut(pair, "=")
		if !ok || value == "" {
			continue
		}
		if dn, err := queryUnescape(name); err == nil {
			name = dn
		}
		if isSecretQueryName(name) {
			c.addEncoded(value, source+":url.query."+name, "query."+name, queryUnescape)
		}
	}
}

// header adds the value of a credential header; for Cookie each cookie's
// value as well.
func (c *collector) header(source, name, value string) {
	value = strings.TrimSpace(value)
	src := source + ":header." + name
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, "cookie") {
		c.add(value, src, name)
		for _, kv := range strings.Split(value, ";") {
			if _, v, ok := strings.Cut(kv, "="); ok {
				c.add(strings.TrimSpace(v), src, name)
			}
		}
		return
	}
	c.addCredential(value, src, name)
	if f := strings.Fields(value); len(f) > 0 && !authSchemes[strings.ToLower(f[0])] {
		c.add(f[0], src, name)
	}
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
