package policy

import (
	"strings"
	"testing"
)

// TestProgramConfigNotInherited: variables that point a program at a
// configuration or a program (git, ripgrep, less, man, pagers, editors)
// reach no command, whether inherited or passed by the operator, and a
// guard-allowed run holds only the host's own git settings.
func TestProgramConfigNotInherited(t *testing.T) {
	hostile := []string{
		"GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT",
		"GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_PARAMETERS", "GIT_EXTERNAL_DIFF", "GIT_PAGER",
		"GIT_EDITOR", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_ATTR_SOURCE",
		"RIPGREP_CONFIG_PATH", "LESSOPEN", "LESSCLOSE", "LESS", "LESSKEY", "PAGER", "MANPAGER", "MANOPT",
		"EDITOR", "VISUAL", "BROWSER", "SYSTEMD_PAGER", "TAR_OPTIONS", "GREP_OPTIONS", "XDG_CONFIG_HOME", "WGETRC",
	}
	var host []string
	for _, k := range hostile {
		host = append(host, k+"=/tmp/evil")
	}
	host = append(host, "PATH=/usr/bin:/bin", "LANG=C.UTF-8")
	env, err := BuildCommandEnv(EnvOptions{Host: host, Home: "/tmp/home", Pass: hostile}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		if strings.Contains(kv, "/tmp/evil") {
			t.Errorf("the command environment holds %s", kv)
		}
	}
	guarded := GuardedGitEnv(env)
	for _, kv := range guarded {
		if strings.Contains(kv, "/tmp/evil") {
			t.Errorf("the guarded environment holds %s", kv)
		}
	}
	for _, k := range hostile {
		if err := CheckEnvOverlay(map[string]string{k: "x"}); err == nil {
			t.Errorf("an overlay may set %s", k)
		}
	}
}
