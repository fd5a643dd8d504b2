package hostopts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The config's lines are what a running host compares (hostd.configDiff)
// and its flags what a started host is given: every option, in order,
// paths made absolute, the workspace defaulting to the current directory
// only without a core.
func TestConfig(t *testing.T) {
	// The operator's configuration directory, as the host reads its
	// files from its own environment: a host of another compares unequal.
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	wd, _ := os.Getwd()
	config, flags, err := Config(Options{PluginDir: "p", OutputCapMiB: 256, ArtifactBudgetMiB: 4096, LiveRevision: "abc"})
	want := strings.Join([]string{"core=", "core-id=", "workspace=" + wd, "plugin-dir=" + filepath.Join(wd, "p"), "call-timeout=",
		"output-cap-mib=256", "artifact-budget-mib=4096", "sandbox=", "allow-private-mcp=", "timezone=", "operator-config=/cfg/demiurge", "core-revision=abc"}, "\n")
	if err != nil || config != want {
		t.Fatalf("config:\n%s\nwant:\n%s (%v)", config, want, err)
	}
	if strings.Join(flags, " ") != "--workspace="+wd+" --plugin-dir="+filepath.Join(wd, "p")+" --output-cap-mib=256 --artifact-budget-mib=4096" {
		t.Fatalf("flags: %q", flags)
	}
	config, flags, _ = Config(Options{Core: "/c", CoreID: "x", CallTimeout: 90 * time.Second, OutputCapMiB: 1, ArtifactBudgetMiB: 2,
		Sandbox: "off", AllowPrivateMCP: []string{"a=1:2", "b=3:4"}, Timezone: "UTC"})
	want = strings.Join([]string{"core=/c", "core-id=x", "workspace=", "plugin-dir=", "call-timeout=1m30s",
		"output-cap-mib=1", "artifact-budget-mib=2", "sandbox=off", "allow-private-mcp=a=1:2,b=3:4", "timezone=UTC", "operator-config=/cfg/demiurge", "core-revision="}, "\n")
	if config != want {
		t.Fatalf("config:\n%s\nwant:\n%s", config, want)
	}
	if strings.Join(flags, " ") != "--core=/c --core-id=x --call-timeout=1m30s --output-cap-mib=1 --artifact-budget-mib=2 --sandbox=off --allow-private-mcp=a=1:2 --allow-private-mcp=b=3:4 --timezone=UTC" {
		t.Fatalf("flags: %q", flags)
	}
}
