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
	} {
		if got := isSecretName(tc.name); got != tc.want {
			t.Errorf("isSecretName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
