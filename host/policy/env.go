package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Limits on an explicit environment overlay.
const (
	MaxEnvOverlayKeys  = 64
	MaxEnvOverlayValue = 32 << 10
)

// commandEnvKeys are the host variables a command inherits: enough to run
// programs and to format text, never a credential. HOME and TZ are set by
// the builder, not copied.
var commandEnvKeys = []string{
	"PATH", "USER", "LOGNAME", "SHELL", "TERM",
	"LANG", "LANGUAGE", "LC_ALL", "LC_ADDRESS", "LC_COLLATE", "LC_CTYPE", "LC_IDENTIFICATION",
	"LC_MEASUREMENT", "LC_MESSAGES", "LC_MONETARY", "LC_NAME", "LC_NUMERIC", "LC_PAPER",
	"LC_TELEPHONE", "LC_TIME",
	"TMPDIR", "TMP", "TEMP",
}

// EnvOptions say how a command's environment is built.
type EnvOptions struct {
	// Host is the host's environment as KEY=VALUE (os.Environ()); only
	// allowlisted keys are taken from it.
	Host []string
	// Home is the dedicated runtime directory the command sees as HOME.
	Home string
	// Timezone is the configured TZ; "" keeps the host's TZ, if any.
	Timezone string
	// Pass names further host variables to inherit (operator
	// configuration). A credential or an injection variable named here is
	// still dropped.
	Pass []string
}

// BuildCommandEnv builds a command's environment from the allowlist, with
// HOME and TZ set, and then the explicit overlay on top. The overlay is
// checked with CheckEnvOverlay first. The result is sorted, never nil, and
// holds no credential and no loader or option-injection variable.
func BuildCommandEnv(opts EnvOptions, overlay map[string]string) ([]string, error) {
	if opts.Home == "" {
		return nil, fmt.Errorf("command environment: no runtime home directory configured")
	}
	if err := CheckEnvOverlay(overlay); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, k := range commandEnvKeys {
		want[k] = true
	}
	for _, k := range opts.Pass {
		if validEnvName(k) && !CredentialEnvKey(k) && !ExecControlEnvKey(k) {
			want[k] = true
		}
	}
	env := map[string]string{}
	for _, kv := range opts.Host {
		k, v, ok := strings.Cut(kv, "=")
		if ok && want[k] && !strings.ContainsRune(v, 0) {
			env[k] = v
		}
	}
	env["HOME"] = opts.Home
	if opts.Timezone != "" {
		env["TZ"] = opts.Timezone
	} else if tz, ok := lookupEnv(opts.Host, "TZ"); ok && !strings.ContainsRune(tz, 0) {
		env["TZ"] = tz
	}
	for k, v := range overlay {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out, nil
}

// EnvKeys returns the keys of a KEY=VALUE list, sorted: what approval and
// audit views may show of an environment.
func EnvKeys(env []string) []string {
	keys := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// CheckEnvOverlay refuses an overlay that could change how the command is
// executed rather than what it computes: PATH and HOME, loader and
// option-injection variables, runtime search paths and hooks, and every
// key that points a program at a configuration or a program
// (SteeringEnvKey). It also
// refuses malformed names, NUL bytes and oversized overlays. Messages are
// for the model.
func CheckEnvOverlay(overlay map[string]string) error {
	if len(overlay) > MaxEnvOverlayKeys {
		return fmt.Errorf("env has %d variables; the most is %d", len(overlay), MaxEnvOverlayKeys)
	}
	keys := make([]string, 0, len(overlay))
	for k := range overlay {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first bad key named is always the same one
	for _, k := range keys {
		v := overlay[k]
		switch {
		case !validEnvName(k):
			return fmt.Errorf("env key %q is not a variable name (letters, digits and _, not starting with a digit)", k)
		case k == "PATH" || k == "HOME":
			return fmt.Errorf("env may not replace %s; the host sets it", k)
		case ExecControlEnvKey(k):
			return fmt.Errorf("env may not set %s: it changes how programs are loaded or run", k)
		case SteeringEnvKey(k):
			return fmt.Errorf("env may not set %s: it points programs at a configuration, a program, a search path or extra options; if the command needs it, write it into the command itself, where the shell guard reviews it", k)
		case strings.ContainsRune(v, 0):
			return fmt.Errorf("env %s contains a NUL byte", k)
		case len(v) > MaxEnvOverlayValue:
			return fmt.Errorf("env %s is %d bytes; the most is %d", k, len(v), MaxEnvOverlayValue)
		}
	}
	return nil
}

// execControlNames are variables that make a shell, the dynamic loader or
// a language runtime load or run code the command did not name, or that
// replace its search paths or default options.
var execControlNames = map[string]bool{
	// shells
	"BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "PROMPT_COMMAND": true,
	"PS1": true, "PS2": true, "PS3": true, "PS4": true, "IFS": true, "CDPATH": true, "GLOBIGNORE": true,
	"BASH_XTRACEFD": true, "ZDOTDIR": true, "COMSPEC": true, "PATHEXT": true, "INPUTRC": true,
	// C library and loader
	"GCONV_PATH": true, "GLIBC_TUNABLES": true, "HOSTALIASES": true, "LOCPATH": true, "NLSPATH": true,
	"RESOLV_HOST_CONF": true, "RES_OPTIONS": true, "LOCALDOMAIN": true, "MALLOC_CHECK_": true, "TMPPREFIX": true,
	// programs that run other programs
	"PAGER": true, "MANPAGER": true, "EDITOR": true, "VISUAL": true, "BROWSER": true, "LESSOPEN": true,
	"LESSCLOSE": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true, "SYSTEMD_PAGER": true,
	// language runtimes: search paths, startup files, default options
	"PYTHONPATH": true, "PYTHONHOME": true, "PYTHONSTARTUP": true, "PYTHONINSPECT": true, "PYTHONUSERBASE": true,
	"PYTHONBREAKPOINT": true, "PYTHONEXECUTABLE": true,
	"NODE_OPTIONS": true, "NODE_PATH": true, "NODE_REPL_EXTERNAL_MODULE": true,
	"PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "PERL5DB": true,
	"RUBYOPT": true, "RUBYLIB": true, "GEM_PATH": true, "GEM_HOME": true,
	"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "CLASSPATH": true,
	"GOFLAGS": true, "GOENV": true, "GOPATH": true, "GOROOT": true, "GOTOOLCHAIN": true, "GOPROXY": true,
	"RUSTC_WRAPPER": true, "RUSTC_WORKSPACE_WRAPPER": true, "RUSTFLAGS": true, "RUSTDOCFLAGS": true,
	"LUA_PATH": true, "LUA_CPATH": true, "LUA_INIT": true, "PHPRC": true, "PHP_INI_SCAN_DIR": true,
	"R_PROFILE": true, "R_PROFILE_USER": true, "R_ENVIRON": true, "R_ENVIRON_USER": true, "TCLLIBPATH": true,
	"XDG_CONFIG_HOME": true, "XDG_CONFIG_DIRS": true, "XDG_DATA_HOME": true, "XDG_DATA_DIRS": true,
}

// execControlPrefixes cover whole families: the dynamic loaders, exported
// bash functions, git's hook and config variables, and the option
// variables of package managers.
var execControlPrefixes = []string{
	"LD_", "DYLD_", "BASH_FUNC_", "GIT_", "NPM_CONFIG_", "YARN_", "PIP_", "UV_", "CARGO_", "MAVEN_", "GRADLE_",
	"SSH_", "GPG_", "LESS",
}

// ExecControlEnvKey reports whether key controls how programs are loaded or
// run (case-insensitive: several tools read both spellings).
func ExecControlEnvKey(key string) bool {
	k := strings.ToUpper(key)
	if execControlNames[k] {
		return true
	}
	for _, p := range execControlPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// credentialNames and credentialPrefixes are host variables that hold or
// lead to credentials: model providers, channels, MCP, cloud, CI, package
// registries, proxies (which may carry user:password) and the desktop
// session.
var (
	credentialNames = map[string]bool{
		"CI": true, "HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "NO_PROXY": true, "FTP_PROXY": true,
		"SSH_AUTH_SOCK": true, "DISPLAY": true, "WAYLAND_DISPLAY": true, "XAUTHORITY": true,
		"DBUS_SESSION_BUS_ADDRESS": true, "XDG_RUNTIME_DIR": true, "KUBECONFIG": true, "NETRC": true,
		"GEM_HOST_API_KEY": true, "GITHUB_ACTIONS": true,
	}
	credentialPrefixes = []string{
		"OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_", "MISTRAL_", "GROQ_", "COHERE_", "DEEPSEEK_", "OPENROUTER_",
		"XAI_", "PERPLEXITY_", "TOGETHER_", "FIREWORKS_", "HF_", "HUGGINGFACE", "OLLAMA_", "AZURE_", "BRAVE_", "TAVILY_",
		"TELEGRAM_", "SLACK_", "DISCORD_", "MATRIX_", "WHATSAPP_", "TWILIO_", "SIGNAL_", "MATTERMOST_", "FEISHU_", "DINGTALK_", "WECOM_",
		"MCP_", "AWS_", "GCP_", "GCLOUD_", "CLOUDSDK_", "DIGITALOCEAN_", "HCLOUD_", "LINODE_", "CLOUDFLARE_", "VAULT_", "ALIBABA_", "ALIYUN_",
		"GITHUB_", "GH_", "GITLAB_", "BITBUCKET_", "CI_", "BUILDKITE_", "CIRCLE_", "TRAVIS_", "JENKINS_", "DRONE_", "TEAMCITY_",
		"NPM_", "YARN_", "PYPI_", "TWINE_", "CARGO_", "DOCKER_", "NUGET_", "COMPOSER_", "DEMIURGE_", "XDG_SESSION",
	}
)

// credentialMarkers are name parts that make any variable a credential.
var credentialMarkers = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`TOKEN|SECRET|PASSW|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH|COOKIE|SESSION|_PAT$|_PROXY$`)
})

// CredentialEnvKey reports whether key names a credential or a way to one
// (case-insensitive).
func CredentialEnvKey(key string) bool {
	k := strings.ToUpper(key)
	if credentialNames[k] || credentialMarkers().MatchString(k) {
		return true
	}
	for _, p := range credentialPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

func validEnvName(k string) bool { return envName().MatchString(k) }

func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- { // the last one wins, as in getenv
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}
