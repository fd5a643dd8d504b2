package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

func TestValidateCapability(t *testing.T) {
	// Two stand-ins: one whose singular capability is its tool.call
	// grant, and one with a capability of its own, whose tool.call grant
	// is refused by its name.
	defer catalog.SetUnbuiltForTest([]catalog.Unbuilt{{Toolset: "demiurge_control", Tool: "future_tool", Capability: "tool.call:future_tool"},
		{Toolset: "demiurge_control", Tool: "future_report", Capability: "report.write"}})()
	for _, tc := range []struct {
		grant   string
		wantErr string // substring; empty means valid
	}{
		{"fs.read", ""},
		{"fs.write", ""},
		{"terminal.exec", ""},
		{"network.fetch", ""},
		// The reference tools this build lacks have no capability.
		{"schedule.manage", ""},       // built (issue 28)
		{"tool.call:evolve_core", ""}, // built (issue 27)
		{"tool.call:future_tool", "future_tool (toolset demiurge_control)"}, // the stand-in unbuilt tool
		{"tool.call:future_report", "future_report (toolset demiurge_control)"},
		{"report.write", "future_report (toolset demiurge_control)"},
		{"tool.call:rollback_core", ""}, // built (issue 27)
		{"tool.call:delegate_task", ""}, // built (issue 26)
		{"tool.call:schedule_manage", ""},
		{"session.read", ""},
		{"fs.reed", `did you mean "fs.read"?`},
		{"mcp.connect:github", ""},
		{"mcp.call:git-hub.v2", ""},
		{"mcp.call:*", ""},
		{"mcp.connect:*", ""},
		{"tool.call:deploy", ""},
		{"tool.call:*", ""},
		{"secret.bind:GITHUB_TOKEN", ""},
		{"secret.bind:*", "wildcards are refused"},
		{"secret.bind:GITHUB_*", "wildcards are refused"},
		{"secret.bind:", "needs an argument"},
		{"secret.bind:1TOKEN", "environment variable name"},
		{"secret.bind:A-B", "environment variable name"},
		{"mcp.call", "needs an argument"},
		{"mcp.call:", "needs an argument"},
		{"mcp.call:git*", "server id"},
		{"mcp.call:a b", "server id"},
		{"mcp.call:a:b", "server id"},
		{"tool.call:" + strings.Repeat("x", 65), "tool name"},
		{"tool.call:mcp.tool", "tool name"},
		{"tool.call:1tool", "tool name"},
		{"mcp.call:" + strings.Repeat("x", 129), "server id"},
		{"fs.read:x", "unknown capability"},
		{"fs.delete", `unknown capability "fs.delete"`},
		{"*", "unknown capability"},
		{"", "unknown capability"},
		{" fs.read", "unknown capability"},
		{"FS.READ", "unknown capability"},
	} {
		err := ValidateCapability(tc.grant)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("ValidateCapability(%q) = %v, want nil", tc.grant, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("ValidateCapability(%q) = %v, want error containing %q", tc.grant, err, tc.wantErr)
		}
	}
}

func TestNewCapabilitySetRefusesAndNamesTheGrant(t *testing.T) {
	_, err := NewCapabilitySet([]string{"fs.read", "secret.bind:*"})
	if !errors.Is(err, ErrWildcardSecret) || !strings.Contains(err.Error(), `"secret.bind:*"`) {
		t.Fatalf("err = %v, want ErrWildcardSecret naming the grant", err)
	}
	_, err = NewCapabilitySet([]string{"fs.read", "fs.rwite"})
	if err == nil || !strings.Contains(err.Error(), `"fs.rwite"`) {
		t.Fatalf("err = %v, want an error naming fs.rwite", err)
	}
}

func TestCapabilitySetHas(t *testing.T) {
	set, err := NewCapabilitySet([]string{"fs.read", "mcp.call:*", "tool.call:deploy", "secret.bind:TOKEN", "fs.read"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    string
		want bool
	}{
		{"fs.read", true},
		{"fs.write", false},
		{"mcp.call:github", true},
		{"mcp.call:*", false}, // a wildcard is never a requirement
		{"mcp.call:", false},
		{"mcp.call:a b", false},
		{"mcp.connect:github", false},
		{"tool.call:deploy", true},
		{"tool.call:release", false},
		{"secret.bind:TOKEN", true},
		{"secret.bind:OTHER", false},
		{"", false},
		{"fs.read:x", false},
	} {
		// Asked twice: the second answer may come from the names
		// remembered as valid (capability_valid.go), and must not differ.
		for range 2 {
			if got := set.Has(tc.c); got != tc.want {
				t.Errorf("Has(%q) = %v, want %v", tc.c, got, tc.want)
			}
		}
	}
	if _, ok := validMemo.Load("mcp.call:a b"); ok {
		t.Error("an invalid capability was remembered as valid")
	}
	if got, want := set.List(), []string{"fs.read", "mcp.call:*", "secret.bind:TOKEN", "tool.call:deploy"}; !slices.Equal(got, want) {
		t.Errorf("List() = %v, want %v", got, want)
	}
	if (CapabilitySet{}).Has("fs.read") {
		t.Error("the zero set grants fs.read")
	}
}

// TestValidCapabilityMemoIsBounded: past validMemoMax names nothing more is
// remembered, and a name not remembered is still validated.
func TestValidCapabilityMemoIsBounded(t *testing.T) {
	set, err := NewCapabilitySet([]string{"mcp.call:*"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range validMemoMax + 10 {
		if !set.Has(fmt.Sprintf("mcp.call:server%d", i)) {
			t.Fatalf("mcp.call:server%d not granted by mcp.call:*", i)
		}
	}
	n := 0
	validMemo.Range(func(any, any) bool { n++; return true })
	if n > validMemoMax || validCount.Load() > validMemoMax {
		t.Fatalf("%d names remembered (count %d), bound %d", n, validCount.Load(), validMemoMax)
	}
	if set.Has("mcp.call:a b") || set.Has("mcp.call:a b") {
		t.Fatal("an invalid name past the bound was granted")
	}
}

func TestCapabilitySetFingerprint(t *testing.T) {
	a, _ := NewCapabilitySet([]string{"fs.read", "fs.write"})
	b, _ := NewCapabilitySet([]string{"fs.write", "fs.read", "fs.write"})
	c, _ := NewCapabilitySet([]string{"fs.read"})
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("order and duplicates change the fingerprint")
	}
	if a.Fingerprint() == c.Fingerprint() || c.Fingerprint() == (CapabilitySet{}).Fingerprint() {
		t.Error("different sets share a fingerprint")
	}
	if len(a.Fingerprint()) != 64 {
		t.Errorf("fingerprint %q is not hex sha256", a.Fingerprint())
	}
}
