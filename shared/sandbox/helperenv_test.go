package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// TestHelperEnvOnlyWhatTheLauncherAdds: the helper removes only the
// entries the launcher added, once each, and a policy naming any other
// entry is refused (it could otherwise take a variable such as
// LD_PRELOAD away from, or leave one in, what the command sees).
func TestHelperEnvOnlyWhatTheLauncherAdds(t *testing.T) {
	env, added := forHelper([]string{"A=1", "B=2"})
	if !slices.Equal(env, []string{"A=1", "B=2", "GOMAXPROCS=1"}) || !slices.Equal(added, []string{"GOMAXPROCS=1"}) {
		t.Fatalf("forHelper: %q, %q", env, added)
	}
	if got := withoutHelperEnv(env, added); !slices.Equal(got, []string{"A=1", "B=2"}) {
		t.Errorf("withoutHelperEnv: %q", got)
	}
	own := []string{"GOMAXPROCS=1", "A=1"}
	if env, added := forHelper(own); !slices.Equal(env, own) || added != nil {
		t.Errorf("a command's own GOMAXPROCS: %q, %q", env, added)
	}
	p := Policy{Mode: ReadOnly, Workspace: "/ws", TmpDir: "/tmp/x", HelperEnv: []string{"GOMAXPROCS=1"}}
	if err := p.Validate(); err != nil {
		t.Errorf("the launcher's own entry refused: %v", err)
	}
	for _, bad := range []string{"LD_PRELOAD=/x.so", "GOMAXPROCS=2", "PATH=/usr/bin", ""} {
		p.HelperEnv = []string{bad}
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "helper_env") {
			t.Errorf("helper_env %q: %v", bad, err)
		}
	}
}
