package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPreview(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	for _, tc := range []struct {
		name    string
		args    map[string]any
		limit   int
		want    string
		notWant []string
	}{
		{"plain", map[string]any{"path": "README.md", "offset": 3}, 0, `{"offset":3,"path":"README.md"}`, nil},
		{"secret fields", map[string]any{"user": "bob", "password": "pw-123456", "auth": map[string]any{"k": "v-1234"}}, 0,
			`{"auth":"<redacted>","password":"<redacted>","user":"bob"}`, nil},
		{"url password", map[string]any{"url": "https://u:p4ss-word@h/x?token=qq-1234"}, 0,
			`{"url":"https://u:<redacted:url.password>@h/x?token=<redacted:query.token>"}`, nil},
		{"known token", map[string]any{"note": "use ghp_16C7e42F292c6912E7710c838347Ae178B4a"}, 0,
			`{"note":"use <redacted:github_token>"}`, nil},
		{"long string cut at a character", map[string]any{"s": long}, 0,
			`{"s":"` + strings.Repeat("é", 80) + `…(+40 bytes)"}`, nil},
		{"long array cut", map[string]any{"a": func() []any {
			a := make([]any, 25)
			for i := range a {
				a[i] = i
			}
			return a
		}()}, 0, `{"a":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,"…(+5 items)"]}`, nil},
		{"overall limit", map[string]any{"a": "0123456789", "b": "0123456789"}, 20, `{"a":"0123456789","b…(+15 bytes)`, nil},
		{"secret across a cut", map[string]any{"command": strings.Repeat("x", 150) + " --password=abcdefghijklmnop"}, 0, "",
			[]string{"abcdefgh", "ijklmnop"}},
		{"unsupported value", map[string]any{"f": func() {}}, 0, FailedText, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Preview(tc.args, tc.limit)
			if tc.want != "" && got != tc.want {
				t.Fatalf("Preview = %s\nwant      %s", got, tc.want)
			}
			for _, s := range tc.notWant {
				if strings.Contains(got, s) {
					t.Fatalf("preview shows %q: %s", s, got)
				}
			}
		})
	}
}

func TestPreviewIsJSONWhenUncut(t *testing.T) {
	p := Preview(map[string]any{"nested": map[string]any{"token": "t-1234", "list": []any{"a", 1.5, true, nil}}}, 0)
	var v map[string]any
	if err := json.Unmarshal([]byte(p), &v); err != nil {
		t.Fatalf("preview %s is not JSON: %v", p, err)
	}
}
