package policy

import (
	"strings"
	"testing"
)

// Every key that points a program at a configuration, a program, a search
// path or extra options is refused in an overlay, by name, and so is it
// as a binding's target; plain data keys pass.
func TestOverlayRefusesSteeringKeys(t *testing.T) {
	refused := []string{
		// named in issue 10 part 6
		"RIPGREP_CONFIG_PATH", "LESSOPEN", "LESSCLOSE", "LESSKEY", "LESSKEYIN", "LESSKEY_SYSTEM", "PAGER", "MANPAGER",
		"GIT_PAGER", "EDITOR", "VISUAL", "GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_SSH_COMMAND", "GIT_CONFIG_COUNT",
		"APP_CONFIG", "MY_CONFIG_PATH", "TOOLRC", "MYTOOL_RC", "PROMPT_COMMAND", "BASH_ENV", "ENV", "SHELLOPTS",
		"BASHOPTS", "IFS", "CDPATH", "GLOBIGNORE", "PS4", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "HOME", "PATH",
		// loader and runtimes
		"LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "NODE_OPTIONS", "PYTHONPATH", "PYTHONWARNINGS",
		"PYTHONSTARTUP", "PERL5OPT", "PERL_MB_OPT", "RUBYOPT", "JAVA_TOOL_OPTIONS", "GOFLAGS", "OPENSSL_CONF",
		"OPENSSL_ENGINES",
		// configuration and programs of common tools
		"KUBECONFIG", "AWS_CONFIG_FILE", "DOCKER_CONFIG", "DOCKER_HOST", "WGETRC", "CURL_HOME", "NPMRC",
		"npm_config_script_shell", "PHPRC", "VIMINIT", "EXINIT", "MYVIMRC", "GNUPGHOME", "TERMINFO", "SHELL",
		"MANPATH", "MANOPT", "GREP_OPTIONS", "JQ_LIBRARY_PATH", "CFLAGS", "CXXFLAGS", "LDFLAGS", "CC", "CXX",
		"CC_FOR_BUILD", "PKG_CONFIG_PATH", "MAKEFLAGS", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "HTTPS_PROXY",
		"https_proxy", "SUDO_ASKPASS", "GIT_ASKPASS", "BROWSER", "TERMINAL", "HISTFILE", "SYSTEMD_PAGER",
		"FZF_DEFAULT_COMMAND", "BAT_PAGER", "DELTA_PAGER", "RG_CONFIG", "RUSTC_WRAPPER", "CARGO_HOME",
	}
	for _, k := range refused {
		err := CheckEnvOverlay(map[string]string{k: "x"})
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("overlay %s: %v, want a refusal naming the key", k, err)
		}
		if !SteeringEnvKey(k) {
			t.Errorf("SteeringEnvKey(%q) = false", k)
		}
	}
	for _, k := range []string{"DEBUG", "NODE_ENV", "RUST_LOG", "LANG", "LC_ALL", "TZ", "GREETING", "CGO_ENABLED",
		"PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "ARCH", "ASSET_ID", "NPM_TOKEN", "DEPLOY", "COLUMNS"} {
		if err := CheckEnvOverlay(map[string]string{k: "x"}); err != nil {
			t.Errorf("overlay %s: %v, want it allowed (plain data)", k, err)
		}
	}
}

func TestBindingTargetRefusesSteeringKeys(t *testing.T) {
	for _, target := range []string{"RIPGREP_CONFIG_PATH", "LESSOPEN", "GIT_PAGER", "KUBECONFIG", "PYTHONWARNINGS", "APP_CONFIG"} {
		_, err := ResolveBindings([]BindingRequest{{Source: "env:DEMO", Target: target}}, BindingContext{
			Capabilities: mustCaps(t, "secret.bind:DEMO"), Lookup: func(string) (string, bool) { return "a-long-enough-value", true },
		})
		if err == nil || !strings.Contains(err.Error(), "target "+target+" is refused") {
			t.Errorf("target %s: %v", target, err)
		}
	}
}

func mustCaps(t *testing.T, grants ...string) CapabilitySet {
	t.Helper()
	caps, err := NewCapabilitySet(grants)
	if err != nil {
		t.Fatal(err)
	}
	return caps
}
