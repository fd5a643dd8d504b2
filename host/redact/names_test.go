package redact

import (
	"reflect"
	"testing"
)

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"X-Api-Key", []string{"x", "api", "key"}},
		{"xAPIKey", []string{"x", "api", "key"}},
		{"db_password", []string{"db", "password"}},
		{"sessionCookie2", []string{"session", "cookie2"}},
		{"Proxy-Authorization", []string{"proxy", "authorization"}},
		{"", nil},
	} {
		if got := splitWords(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsSecretName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"password", true}, {"PASSWORD", true}, {"passwd", true}, {"db_password", true},
		{"dbPassword", true}, {"dbpassword", true}, {"secret", true}, {"client_secret", true},
		{"token", true}, {"accessToken", true}, {"refresh-token", true}, {"githubtoken", true},
		{"api_key", true}, {"apiKey", true}, {"apikey", true}, {"X-Api-Key", true},
		{"access_key", true}, {"AWS_SECRET_ACCESS_KEY", true}, {"private_key", true},
		{"authorization", true}, {"Proxy-Authorization", true}, {"auth", true},
		{"X-Auth-Token", true}, {"cookie", true}, {"Set-Cookie", true}, {"session", true},
		{"session_id", true}, {"credential", true}, {"credentials", true}, {"PGPASSWORD", true},

		{"max_tokens", false}, {"token_type", false}, {"password_file", false},
		{"secret_name", false}, {"author", false}, {"path", false}, {"content", false},
		{"keyboard", false}, {"monkey", false}, {"passage", false}, {"tokenizer", false},
		{"key", false}, {"command", false}, {"authority", false}, {"password-stdin", false},
		// a binding names a secret; its source and target are names
		{"secret_bindings", false}, {"secretBinding", false}, {"token_binding", false},
	} {
		if got := isSecretName(tc.name); got != tc.want {
			t.Errorf("isSecretName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The ASCII path must judge exactly as the definition does.
func TestIsSecretNameASCIIMatchesWords(t *testing.T) {
	for _, name := range []string{
		"password", "dbPassword", "X-Api-Key", "xAPIKey", "max_tokens", "AWS_SECRET_ACCESS_KEY",
		"api__key", "apiKEY", "APIKey", "signing-key", "openaiapikey", "password_file", "tokenizer",
		"a1B2", "ABCDef", "token2", "", "-", "secret-name-token", "client key", "PIN", "x" + string(make([]byte, 70)),
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaatoken",
	} {
		got, ok := isSecretNameASCII(name)
		if ok && got != isSecretNameWords(name) {
			t.Errorf("isSecretNameASCII(%q) = %v, definition says %v", name, got, !got)
		}
	}
	if _, ok := isSecretNameASCII("pässword"); ok {
		t.Error("a non-ASCII name took the ASCII path")
	}
}

func FuzzIsSecretName(f *testing.F) {
	for _, s := range []string{"password", "X-Api-Key", "xAPIKey", "max_tokens", "signingKey", "ÄPIKey", "a_b-C.dE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, ok := isSecretNameASCII(name); ok && got != isSecretNameWords(name) {
			t.Fatalf("isSecretNameASCII(%q) = %v, definition says %v", name, got, !got)
		}
	})
}
