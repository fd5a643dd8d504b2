package pathrules

import "testing"

func TestIsSensitive(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".env", true},
		// case folded at each bound of A-Z, and backslashes read as
		// separators
		{".Aws/credentials", true},
		{".kubE/config", true},
		{"sub\\.ssh\\id_rsa", true},
		{".aZure/profile", true},
		// .config/gh and .config/gcloud, not the rest of .config
		{".config/gh/hosts.yml", true},
		{".config/gcloud/credentials.db", true},
		{".config/nvim/init.vim", false},
		// a pair's exact name, not its siblings
		{".composer/auth.json", true},
		{".composer/composer.json", false},
		// /proc by number: 0 and 9 are digits, a name is none
		{"/proc/0/environ", true},
		{"/proc/9/environ", true},
		{"/proc/19/task/90/environ", true},
		{"/proc/sys/environ", false},
		{".env.local", true},
		{"./.env.local", true},
		{"app/.env.production", true},
		{".envrc", true},
		{".ENV", true},
		{".ssh/id_ed25519", true},
		{"home/u/.ssh/config", true},
		{".aws/credentials", true},
		{".kube/config", true},
		{".netrc", true},
		{".npmrc", true},
		{".pypirc", true},
		{".git-credentials", true},
		{".docker/config.json", true},
		{".cargo/credentials", true},
		{".cargo/credentials.toml", true},
		{".s3cfg", true},
		{".boto", true},
		{".gnupg/pubring.kbx", true},
		{"keys/id_rsa", true},
		{"id_ed25519_sk", true},
		{"id_rsa_work", true},
		{"certs/server.KEY", true},
		{"tls/cert.pem", true},
		{"terraform.tfstate", true},
		{"infra/terraform.tfstate.backup", true},
		{".bash_history", true},
		{"/home/u/.zsh_history", true},
		{".python_history", true},
		{".node_repl_history", true},
		{".psql_history", true},
		{".mysql_history", true},
		{".sqlite_history", true},
		{".lesshst", true},
		{".local/share/fish/fish_history", true},
		{".config/gcloud/application_default_credentials.json", true},
		{".config/git/credentials", true},
		{`C:\Users\u\.ssh\known_hosts`, true},
		{"/etc/shadow", true},
		{"//etc//shadow", true},
		{"/etc/./shadow", true},
		{"/etc/ssh/../shadow", true},
		{"/ETC/SHADOW", true},
		{"/etc/gshadow", true},
		{"/etc/sudoers", true},
		{"/etc/sudoers.d/90-cloud", true},
		{"/etc/ssh/ssh_host_ed25519_key", true},
		{"/proc/self/environ", true},
		{"/proc/1/environ", true},
		{"/proc/thread-self/environ", true},
		{"/proc/1/task/7/environ", true},
		{"/proc/self/task/7/mem", true},
		{"/proc/self/cmdline", true},
		{"/proc/self/root/etc/passwd", true},
		{"/proc/self/fd/3", true},
		{"/proc/1/maps", true},
		// Not sensitive.
		{"README.md", false},
		{"src/env.go", false},
		{".envrc.example/readme", false},
		{"docs/ssh.md", false},
		{"environment/main.go", false},
		{".github/workflows/ci.yml", false},
		{"keys/id_rsa.pub", false},
		{"/etc/ssh/ssh_host_ed25519_key.pub", false},
		{"src/id_generator.go", false},
		{"id_test.go", false},
		{"history.md", false},
		{"/etc/passwd", false},
		{"/proc/cpuinfo", false},
		{"/proc/self/status", false},
		{"/proc/self/task", false},
		// System rules apply to absolute paths only: a workspace file
		// named like them is not the system's.
		{"etc/shadow", false},
		{"proc/1/environ", false},
		{"cargo/credentials.md", false},
	} {
		if got := IsSensitive(tc.path); got != tc.want {
			t.Errorf("IsSensitive(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestWithDirs(t *testing.T) {
	s := WithDirs("/var/state/demiurge", "relative/ignored", "")
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/var/state/demiurge", true},
		{"/var/state/demiurge/packages/lock.json", true},
		{"/var/state//demiurge/./x", true},
		{"/VAR/state/demiurge/x", true},
		{"/var/state/demiurge-other/x", false},
		{"/var/state", false},
		{"relative/ignored/x", false},
		{".env", true},
		{"/etc/shadow", true},
	} {
		if got := s(tc.path); got != tc.want {
			t.Errorf("WithDirs(...)(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
