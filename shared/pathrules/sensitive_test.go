package pathrules

import "testing"

func TestIsSensitive(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".env", true},
		{".env.local", true},
		{"app/.env.production", true},
		{".ssh/id_ed25519", true},
		{"home/u/.ssh/config", true},
		{".aws/credentials", true},
		{".kube/config", true},
		{".netrc", true},
		{".npmrc", true},
		{".pypirc", true},
		{"certs/server.KEY", true},
		{".config/gcloud/application_default_credentials.json", true},
		{`C:\Users\u\.ssh\known_hosts`, true},
		{"README.md", false},
		{"src/env.go", false},
		{".envrc.example/readme", false},
		{"docs/ssh.md", false},
		{"environment/main.go", false},
		{".github/workflows/ci.yml", false},
	} {
		if got := IsSensitive(tc.path); got != tc.want {
			t.Errorf("IsSensitive(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
