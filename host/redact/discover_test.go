package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func decodeArgs(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test args %s: %v", s, err)
	}
	return m
}

// has reports whether secrets holds value with the given source and target.
func has(secrets []Secret, value, source, target string) bool {
	for _, s := range secrets {
		if s.Value == value && (source == "" || s.Source == source) && (target == "" || s.Target == target) {
			return true
		}
	}
	return false
}

func TestDiscover(t *testing.T) {
	type want struct{ value, source, target string }
	for _, tc := range []struct {
		name    string
		args    string
		bound   map[string]string
		want    []want
		notWant []string
	}{
		{"password field", `{"user":"alice","password":"hunter2!x"}`, nil,
			[]want{{"hunter2!x", "arg:password", "password"}}, []string{"alice"}},
		{"nested and case-insensitive", `{"db":{"Config":{"DB_PASSWORD":"pw-1234"}}}`, nil,
			[]want{{"pw-1234", "arg:db.Config.DB_PASSWORD", "DB_PASSWORD"}}, nil},
		{"arrays under a secret key", `{"tokens_list":[1],"credentials":[{"user":"bob","pass":"bobs-pass"}]}`, nil,
			[]want{{"bobs-pass", "arg:credentials[0].pass", "credentials"}, {"bob", "arg:credentials[0].user", "credentials"}}, nil},
		{"numeric secret", `{"pin":123456}`, nil, []want{{"123456", "arg:pin", "pin"}}, nil},
		{"authorization header strips scheme", `{"headers":{"Authorization":"Bearer abc.def.ghi-123"}}`, nil,
			[]want{{"Bearer abc.def.ghi-123", "arg:headers.Authorization", "Authorization"}, {"abc.def.ghi-123", "arg:headers.Authorization", "Authorization"}}, nil},
		{"basic header decoded", `{"headers":{"Proxy-Authorization":"Basic dXNlcjpwYXNzd29yZDE="}}`, nil,
			[]want{{"dXNlcjpwYXNzd29yZDE=", "", ""}, {"user:password1", "", ""}, {"password1", "", ""}}, nil},
		{"header pair list", `{"headers":[{"name":"X-Api-Key","value":"k-123456789"}]}`, nil,
			[]want{{"k-123456789", "arg:headers[0].value", "X-Api-Key"}}, nil},
		{"header pair with two name keys", `{"h":{"Name":"x-trace","name":"Authorization","value":"v-secret-987"}}`, nil,
			[]want{{"v-secret-987", "arg:h.value", "Authorization"}}, nil},
		{"header line in a string", `{"command":"curl -H 'Authorization: Bearer tok_abcdef123' https://api.example.com"}`, nil,
			[]want{{"tok_abcdef123", "arg:command:header.Authorization", "Authorization"}}, nil},
		{"cookie header", `{"raw":"Cookie: sid=abc123def; theme=dark"}`, nil,
			[]want{{"abc123def", "arg:raw:header.Cookie", "Cookie"}, {"dark", "", ""}}, nil},
		{"url userinfo", `{"url":"postgres://admin:s3cr%40t@db.internal:5432/app"}`, nil,
			[]want{{"s3cr%40t", "arg:url:url.userinfo", "url.password"}, {"s3cr@t", "arg:url:url.userinfo", "url.password"},
				{"YWRtaW46czNjckB0", "arg:url:url.userinfo", "url.basic"}}, []string{"admin", "db.internal"}},
		{"token as url user", `{"remote":"https://ghp_0123456789abcdefABCDEF@github.com/o/r.git"}`, nil,
			[]want{{"ghp_0123456789abcdefABCDEF", "arg:remote:url.userinfo", "url.user"}}, nil},
		{"url in prose", `{"text":"see https://u:p4ssw0rd@example.com/x for details"}`, nil,
			[]want{{"p4ssw0rd", "arg:text:url.userinfo", "url.password"}}, nil},
		{"query parameters", `{"url":"https://api.example.com/v1?q=cats&api_key=abc%2B123&key=AIzaXYZ&page=2#access_token=frag-tok-1"}`, nil,
			[]want{{"abc%2B123", "arg:url:url.query.api_key", "query.api_key"}, {"abc+123", "", ""},
				{"AIzaXYZ", "arg:url:url.query.key", "query.key"}, {"frag-tok-1", "arg:url:url.query.access_token", ""}},
			[]string{"cats", "2"}},
		{"long option with equals", `{"command":"deploy --token=tk-9876543 --verbose"}`, nil,
			[]want{{"tk-9876543", "arg:command:option.token", "option.token"}}, nil},
		{"long option with space", `{"command":"wget --http-password 'pa ss word' https://x"}`, nil,
			[]want{{"pa ss word", "arg:command:option.http-password", "option.http-password"}}, nil},
		{"mysql attached -p", `{"command":"mysql -u root -pS3cretPw db"}`, nil,
			[]want{{"S3cretPw", "arg:command:option.-p", "option.p"}}, []string{"root", "db"}},
		{"mysql separate -p after sudo", `{"command":"sudo mysqldump -h h -p S3cretPw db > out.sql"}`, nil,
			[]want{{"S3cretPw", "arg:command:option.-p", "option.p"}}, nil},
		{"ssh -p is a port", `{"command":"ssh -p 2222 host; mysql -pPw123456"}`, nil,
			[]want{{"Pw123456", "", ""}}, []string{"2222"}},
		{"argv array", `{"argv":["redis-cli","-a","redis-pass","ping"]}`, nil,
			[]want{{"redis-pass", "arg:argv:option.-a", "option.a"}}, []string{"ping"}},
		{"curl user", `{"command":"curl -u alice:curl-pass https://x"}`, nil,
			[]want{{"alice:curl-pass", "", ""}, {"curl-pass", "arg:command:option.-u", "option.u"}}, nil},
		{"env assignment", `{"command":"PGPASSWORD='pg pass 1' psql -h db"}`, nil,
			[]want{{"pg pass 1", "arg:command:assign.PGPASSWORD", "PGPASSWORD"}}, nil},
		{"json text", `{"body":"{\"client_secret\": \"cs-\\\"quoted\\\"-1\", \"name\": \"x\"}"}`, nil,
			[]want{{`cs-"quoted"-1`, "arg:body:json.client_secret", "client_secret"}, {`cs-\"quoted\"-1`, "", ""}}, nil},
		{"yaml text", "{\"content\":\"db:\\n  password: yaml-pass-1\\n  host: h\\n\"}", nil,
			[]want{{"yaml-pass-1", "arg:content:line.password", "password"}}, []string{"h"}},
		{"bindings", `{"command":"make deploy"}`, map[string]string{"GITHUB_TOKEN": "bound-value-1"},
			[]want{{"bound-value-1", "binding:GITHUB_TOKEN", "GITHUB_TOKEN"}}, nil},
		{"metadata names are not secrets", `{"max_tokens":4096,"token_type":"bearer","password_file":"/run/pw","secret_name":"prod"}`, nil,
			nil, []string{"4096", "bearer", "/run/pw", "prod"}},
		{"plain arguments", `{"path":"README.md","content":"hello world","offset":10}`, nil, nil, []string{"README.md", "hello world"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Discover(decodeArgs(t, tc.args), tc.bound)
			for _, w := range tc.want {
				if !has(got, w.value, w.source, w.target) {
					t.Errorf("missing %q (source %q, target %q) in %+v", w.value, w.source, w.target, got)
				}
			}
			for _, v := range tc.notWant {
				if has(got, v, "", "") {
					t.Errorf("%q wrongly taken for a secret: %+v", v, got)
				}
			}
		})
	}
}

func TestDiscoverText(t *testing.T) {
	msg := `dial postgres://app:db-pass-9@10.0.0.5/app failed; retry with password=hunter22 Authorization: Bearer zzz-token-1`
	got := DiscoverText("error", msg)
	for _, v := range []string{"db-pass-9", "hunter22", "zzz-token-1"} {
		if !has(got, v, "", "") {
			t.Errorf("missing %q in %+v", v, got)
		}
	}
	for _, s := range got {
		if !strings.HasPrefix(s.Source, "error:") {
			t.Errorf("source %q does not start with error:", s.Source)
		}
	}
}

func FuzzDiscoverText(f *testing.F) {
	for _, s := range []string{
		"https://u:p@h/?token=x#access_token=y", "mysql -pX; curl -u a:b", "Authorization: Basic dXNlcjpwYXNz",
		`{"password": "a\"b"}`, "password: x\n", "A=1 TOKEN='t t' cmd --secret", "-p", "://@?&=#",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, sec := range DiscoverText("error", s) {
			if strings.TrimSpace(sec.Value) == "" || !strings.HasPrefix(sec.Source, "error") || sec.Target == "" {
				t.Fatalf("bad secret %+v from %q", sec, s)
			}
		}
	})
}
