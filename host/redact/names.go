package redact

import (
	"strings"
	"unicode"
)

// secretWords are words that, anywhere in a field name, mark its value as a
// secret: "password", "db_password", "X-Auth-Token", "sessionCookie".
var secretWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "pwd": true, "pass": true,
	"secret": true, "secrets": true, "token": true, "auth": true, "authorization": true,
	"cookie": true, "cookies": true, "session": true, "sessionid": true,
	"credential": true, "credentials": true, "creds": true,
	"apikey": true, "accesskey": true, "privatekey": true, "secretkey": true,
	"bearer": true, "jwt": true, "otp": true, "pin": true,
}

// secretPairs are two adjacent words that together mark a secret.
var secretPairs = map[[2]string]bool{
	{"api", "key"}: true, {"access", "key"}: true, {"private", "key"}: true,
	{"secret", "key"}: true, {"signing", "key"}: true, {"encryption", "key"}: true,
	{"master", "key"}: true, {"client", "key"}: true,
}

// secretSuffixes catch compound words written without separators:
// "dbpassword", "accesstoken", "clientsecret", "openaiapikey".
var secretSuffixes = []string{"password", "passwd", "token", "secret", "apikey", "accesskey", "privatekey"}

// metadataWords name something about a secret rather than the secret:
// "max_tokens", "token_type", "password_file", "secret_name". A field whose
// name has one of these is not a secret by name (its value is still
// searched for URLs, headers and command options).
var metadataWords = map[string]bool{
	"count": true, "limit": true, "max": true, "min": true, "type": true, "kind": true,
	"length": true, "len": true, "size": true, "file": true, "path": true, "dir": true,
	"name": true, "names": true, "url": true, "uri": true, "endpoint": true, "env": true,
	"ref": true, "expires": true, "expiry": true, "expiration": true, "ttl": true,
	"stdin": true, "prompt": true, "tokens": true, "timeout": true, "enabled": true,
	"required": true, "header": true, "method": true, "scheme": true,
	// a binding names a secret (source env:NAME, target NAME), it never
	// holds one: "secret_bindings" carries names, not values.
	"binding": true, "bindings": true,
}

// judgeSecretName is isSecretName without the memory. It runs on every
// key of every argument and result, so ASCII names take an
// allocation-free path.
func judgeSecretName(name string) bool {
	if secret, ok := isSecretNameASCII(name); ok {
		return secret
	}
	return isSecretNameWords(name)
}

// isSecretNameWords is isSecretName over splitWords: the definition, and
// the path for names the ASCII path does not take.
func isSecretNameWords(name string) bool {
	words := splitWords(name)
	found := false
	for i, w := range words {
		if metadataWords[w] {
			return false
		}
		if secretWords[w] || (i > 0 && secretPairs[[2]string{words[i-1], w}]) {
			found = true
			continue
		}
		for _, suf := range secretSuffixes {
			if len(w) > len(suf) && strings.HasSuffix(w, suf) {
				found = true
			}
		}
	}
	return found
}

// secretQueryNames are query parameters that carry credentials although
// their names are not secret words: Google's ?key=, signed URL signatures.
var secretQueryNames = map[string]bool{
	"key": true, "sig": true, "signature": true, "x-amz-signature": true,
	"x-amz-credential": true, "x-amz-security-token": true, "x-goog-signature": true,
	"x-goog-credential": true, "code": true, "client_secret": true,
}

func isSecretQueryName(name string) bool {
	return secretQueryNames[strings.ToLower(name)] || isSecretName(name)
}

// splitWords lower-cases name and splits it into words at separators and
// camel-case boundaries: "X-Api-Key" and "xAPIKey" both give [x api key].
func splitWords(name string) []string {
	var words []string
	var cur []rune
	runes := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prev := runes[i-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			// fooBar -> foo|Bar ; APIKey -> API|Key
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}
