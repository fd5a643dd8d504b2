package policy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestBuildCommandEnv(t *testing.T) {
	host := []string{
		"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TMPDIR=/var/tmp", "TERM=xterm", "USER=ada",
		"HOME=/home/ada", "TZ=Europe/Paris",
		// everything below must be dropped
		"OPENAI_API_KEY=sk-provider", "ANTHROPIC_API_KEY=sk-ant", "TELEGRAM_BOT_TOKEN=123:abc", "SLACK_TOKEN=xoxb",
		"MCP_SERVER_TOKEN=m", "AWS_SECRET_ACCESS_KEY=aws", "AWS_ACCESS_KEY_ID=AKIA", "GOOGLE_APPLICATION_CREDENTIALS=/k.json",
		"AZURE_CLIENT_SECRET=az", "CI=true", "GITHUB_TOKEN=ghp", "CI_JOB_TOKEN=cj", "NPM_TOKEN=npm", "PYPI_TOKEN=pypi",
		"CARGO_REGISTRY_TOKEN=c", "HTTPS_PROXY=http://u:p@proxy", "http_proxy=http://u:p@proxy", "SSH_AUTH_SOCK=/s",
		"DISPLAY=:0", "DBUS_SESSION_BUS_ADDRESS=unix:x", "XAUTHORITY=/x",
		"LD_PRELOAD=/evil.so", "LD_LIBRARY_PATH=/evil", "DYLD_INSERT_LIBRARIES=/e", "BASH_ENV=/evil.sh", "ENV=/evil.sh",
		"PROMPT_COMMAND=evil", "GIT_CONFIG_GLOBAL=/evil", "GIT_SSH_COMMAND=evil", "NODE_OPTIONS=--require=/evil",
		"PYTHONSTARTUP=/evil.py", "PERL5OPT=-Mevil", "BASH_FUNC_ls%%=() { evil; }", "DEMIURGE_STATE=/state",
		"RANDOM_UNKNOWN=1",
	}
	cases := []struct {
		name    string
		opts    EnvOptions
		overlay map[string]string
		want    []string
		wantErr string
	}{
		{name: "allowlist, home and host TZ", opts: EnvOptions{Host: host, Home: "/state/runtime/terminal-home"},
			want: []string{"HOME=/state/runtime/terminal-home", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin", "TERM=xterm", "TMPDIR=/var/tmp", "TZ=Europe/Paris", "USER=ada"}},
		{name: "configured timezone wins", opts: EnvOptions{Host: host, Home: "/h", Timezone: "UTC"},
			want: []string{"HOME=/h", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin", "TERM=xterm", "TMPDIR=/var/tmp", "TZ=UTC", "USER=ada"}},
		{name: "overlay on top", opts: EnvOptions{Host: []string{"PATH=/bin", "LANG=C"}, Home: "/h"},
			overlay: map[string]string{"LANG": "de_DE.UTF-8", "DEBUG": "1", "PYTHONUNBUFFERED": "1"},
			want:    []string{"DEBUG=1", "HOME=/h", "LANG=de_DE.UTF-8", "PATH=/bin", "PYTHONUNBUFFERED=1"}},
		{name: "configured pass-through, credentials still dropped", opts: EnvOptions{Host: host, Home: "/h", Pass: []string{"RANDOM_UNKNOWN", "GITHUB_TOKEN", "LD_PRELOAD", "bad name"}},
			want: []string{"HOME=/h", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin", "RANDOM_UNKNOWN=1", "TERM=xterm", "TMPDIR=/var/tmp", "TZ=Europe/Paris", "USER=ada"}},
		{name: "NUL in a host value is dropped", opts: EnvOptions{Host: []string{"PATH=/bin\x00/evil"}, Home: "/h"}, want: []string{"HOME=/h"}},
		{name: "no home", opts: EnvOptions{Host: host}, wantErr: "no runtime home"},
		{name: "overlay replaces PATH", opts: EnvOptions{Home: "/h"}, overlay: map[string]string{"PATH": "/tmp/evil"}, wantErr: "may not replace PATH"},
		{name: "overlay replaces HOME", opts: EnvOptions{Home: "/h"}, overlay: map[string]string{"HOME": "/root"}, wantErr: "may not replace HOME"},
		{name: "overlay LD_PRELOAD", opts: EnvOptions{Home: "/h"}, overlay: map[string]string{"LD_PRELOAD": "/x.so"}, wantErr: "may not set LD_PRELOAD"},
		{name: "overlay lower-case npm config", opts: EnvOptions{Home: "/h"}, overlay: map[string]string{"npm_config_script_shell": "/x"}, wantErr: "may not set npm_config_script_shell"},
		{name: "overlay bad name", opts: EnvOptions{Home: "/h"}, overlay: map[string]string{"A=B": "x"}, wantErr: "not a variable name"},
		{name: "overlay NUL", opts: EnvOptions{Home: "/h"}, overlay: map[string]string{"A": "x\x00y"}, wantErr: "NUL"},
		{name: "overlay too big", opts: EnvOptions{Home: "/h"}, overlay: map[string]string{"A": strings.Repeat("x", MaxEnvOverlayValue+1)}, wantErr: "the most is"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BuildCommandEnv(tc.opts, tc.overlay)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("env\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestEnvKeyClasses(t *testing.T) {
	cases := []struct {
		key               string
		credential, exctl bool
	}{
		{"PATH", false, false}, {"LANG", false, false}, {"DEBUG", false, false}, {"PYTHONUNBUFFERED", false, false},
		{"OPENAI_API_KEY", true, false}, {"MY_SERVICE_TOKEN", true, false}, {"db_password", true, false},
		{"AWS_PROFILE", true, false}, {"https_proxy", true, false}, {"SSH_AUTH_SOCK", true, true},
		{"TELEGRAM_BOT_TOKEN", true, false}, {"MCP_GITHUB_PAT", true, false}, {"GITHUB_TOKEN", true, false},
		{"LD_PRELOAD", false, true}, {"LD_AUDIT", false, true}, {"DYLD_INSERT_LIBRARIES", false, true},
		{"BASH_ENV", false, true}, {"ENV", false, true}, {"PROMPT_COMMAND", false, true}, {"GIT_EXTERNAL_DIFF", false, true},
		{"NODE_OPTIONS", false, true}, {"PYTHONSTARTUP", false, true}, {"PERL5OPT", false, true}, {"RUBYOPT", false, true},
		{"JAVA_TOOL_OPTIONS", false, true}, {"GOFLAGS", false, true}, {"COMSPEC", false, true}, {"GLIBC_TUNABLES", false, true},
		{"BASH_FUNC_x%%", false, true}, {"PAGER", false, true}, {"PYTHONPATH", false, true}, {"NODE_PATH", false, true},
	}
	for _, tc := range cases {
		if got := CredentialEnvKey(tc.key); got != tc.credential {
			t.Errorf("CredentialEnvKey(%q) = %v, want %v", tc.key, got, tc.credential)
		}
		if got := ExecControlEnvKey(tc.key); got != tc.exctl {
			t.Errorf("ExecControlEnvKey(%q) = %v, want %v", tc.key, got, tc.exctl)
		}
	}
}

func TestEnvKeys(t *testing.T) {
	got := EnvKeys([]string{"B=2", "A=1=x", "B=3", "C="})
	if !slices.Equal(got, []string{"A", "B", "C"}) {
		t.Fatalf("EnvKeys = %v", got)
	}
}

// TestEnvOverlayLimitsAreInclusive: an overlay of MaxEnvOverlayKeys
// variables, each of MaxEnvOverlayValue bytes, is accepted; one more
// variable or one more byte is refused.
func TestEnvOverlayLimitsAreInclusive(t *testing.T) {
	overlay := func(keys, size int) map[string]string {
		m := map[string]string{}
		for i := range keys {
			m[fmt.Sprintf("V%d", i)] = strings.Repeat("x", size)
		}
		return m
	}
	if err := CheckEnvOverlay(overlay(MaxEnvOverlayKeys, MaxEnvOverlayValue)); err != nil {
		t.Errorf("at the limits: %v", err)
	}
	for _, o := range []map[string]string{overlay(MaxEnvOverlayKeys+1, 1), overlay(1, MaxEnvOverlayValue+1)} {
		if err := CheckEnvOverlay(o); err == nil || !strings.Contains(err.Error(), "the most is") {
			t.Errorf("past a limit (%d keys): %v", len(o), err)
		}
	}
}

// TestCommandEnvTakesTheHostsTZ: with no configured timezone, the host's
// TZ is kept wherever it stands in the host's environment, the last of
// two winning as in getenv.
func TestCommandEnvTakesTheHostsTZ(t *testing.T) {
	for _, tc := range []struct {
		host []string
		want string
	}{
		{[]string{"TZ=Asia/Tokyo", "PATH=/bin"}, "TZ=Asia/Tokyo"},
		{[]string{"PATH=/bin", "TZ=UTC", "TZ=Europe/Paris"}, "TZ=Europe/Paris"},
	} {
		env, err := BuildCommandEnv(EnvOptions{Host: tc.host, Home: "/h"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(env, tc.want) {
			t.Errorf("host %q: env %q lacks %s", tc.host, env, tc.want)
		}
	}
}
