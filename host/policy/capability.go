package policy

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"demiurge.dev/catalog"
)

// The capability names of docs/architecture.md "Policy model" and
// docs/agent-yaml.md. Plain capabilities take no argument; scoped ones are
// written "<prefix>:<name>".
const (
	CapFSRead       = "fs.read"
	CapFSWrite      = "fs.write"
	CapTerminalExec = "terminal.exec"
	CapNetworkFetch = "network.fetch"
	CapSessionRead  = "session.read"
	// CapScheduleManage is schedule_manage's (issue 28).
	CapScheduleManage = "schedule.manage"

	PrefixMCPConnect = "mcp.connect"
	PrefixMCPCall    = "mcp.call"
	PrefixSecretBind = "secret.bind"
	PrefixToolCall   = "tool.call"
)

var plainCapabilities = []string{
	CapFSRead, CapFSWrite, CapTerminalExec, CapNetworkFetch, CapSessionRead, CapScheduleManage,
}

// scopedCapabilities maps each scoped prefix to the shape of its argument
// and whether a whole-suffix wildcard may be granted.
var scopedCapabilities = map[string]struct {
	arg      func(string) bool
	argHint  string
	wildcard bool
}{
	PrefixMCPConnect: {func(s string) bool { return serverID().MatchString(s) }, "a server id of letters, digits, '_', '-' or '.'", true},
	PrefixMCPCall:    {func(s string) bool { return serverID().MatchString(s) }, "a server id of letters, digits, '_', '-' or '.'", true},
	PrefixToolCall:   {func(s string) bool { return catalog.ValidToolName(s) == nil }, "a tool name of letters, digits, '_' or '-'", true},
	// A secret is bound by its exact name only: a wildcard would hand every
	// host credential to whatever asks.
	PrefixSecretBind: {func(s string) bool { return envName().MatchString(s) }, "an environment variable name like GITHUB_TOKEN", false},
}

// The patterns compile on first use: their bounded repetitions make them
// costly to compile, and most commands never check a scoped grant.
var (
	serverID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })
	envName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`) })
)

// ErrWildcardSecret is returned for any wildcard secret.bind grant.
var ErrWildcardSecret = errors.New("secret.bind grants must name one secret exactly; wildcards are refused")

// ValidateCapability checks that one grant is a known capability in its
// canonical form. A whole-suffix wildcard ("mcp.call:*") is allowed where
// the capability permits one.
func ValidateCapability(grant string) error {
	if err := unbuiltGrant(grant); err != nil {
		return err
	}
	if slices.Contains(plainCapabilities, grant) {
		return nil
	}
	prefix, arg, scoped := strings.Cut(grant, ":")
	shape, known := scopedCapabilities[prefix]
	if !known {
		hint := ""
		if s := catalog.Suggest(grant, plainCapabilities); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		return fmt.Errorf("unknown capability %q%s (known: %s, and %s:<server>, %s:<server>, %s:<NAME>, %s:<name>)",
			grant, hint, strings.Join(plainCapabilities, ", "), PrefixMCPConnect, PrefixMCPCall, PrefixSecretBind, PrefixToolCall)
	}
	if prefix == PrefixSecretBind && strings.Contains(arg, "*") {
		return fmt.Errorf("capability %q: %w", grant, ErrWildcardSecret)
	}
	if !scoped || arg == "" {
		return fmt.Errorf("capability %q needs an argument: write %s:<%s>", grant, prefix, shape.argHint)
	}
	if arg == "*" && shape.wildcard {
		return nil
	}
	if !shape.arg(arg) {
		return fmt.Errorf("capability %q: the part after %q must be %s (or * to grant all)", grant, prefix+":", shape.argHint)
	}
	return nil
}

// unbuiltGrant refuses a grant for a reference tool this build does not
// have: a capability with nothing behind it would read as a promise.
func unbuiltGrant(grant string) error {
	u, ok := catalog.UnbuiltCapability(grant)
	if prefix, arg, _ := strings.Cut(grant, ":"); !ok && prefix == PrefixToolCall {
		u, ok = catalog.UnbuiltTool(arg)
	}
	if !ok {
		return nil
	}
	return fmt.Errorf("capability %q is refused: it is for %s (toolset %s), which the Tools reference lists but this build does not implement yet; remove the grant", grant, u.Tool, u.Toolset)
}

// CapabilitySet is a validated, immutable snapshot of granted capabilities.
// The zero value grants nothing.
type CapabilitySet struct {
	grants []string // sorted, unique
}

// NewCapabilitySet validates every grant; the first invalid one fails the
// whole set, naming the grant, so that a typo never silently grants less or
// more than was meant.
func NewCapabilitySet(grants []string) (CapabilitySet, error) {
	out := make([]string, 0, len(grants))
	for _, g := range grants {
		if err := ValidateCapability(g); err != nil {
			return CapabilitySet{}, err
		}
		out = append(out, g)
	}
	slices.Sort(out)
	return CapabilitySet{grants: slices.Compact(out)}, nil
}

// Has reports whether capability c is granted, exactly or through a
// wildcard grant of its prefix. A wildcard is a grant form, never a
// requirement: Has of anything containing "*" is false.
func (s CapabilitySet) Has(c string) bool {
	if c == "" || strings.Contains(c, "*") {
		return false
	}
	if _, found := slices.BinarySearch(s.grants, c); found {
		return true
	}
	prefix, _, _ := strings.Cut(c, ":")
	if !scopedCapabilities[prefix].wildcard || !validCapability(c) {
		return false
	}
	_, found := slices.BinarySearch(s.grants, prefix+":*")
	return found
}

// List returns the grants, sorted.
func (s CapabilitySet) List() []string { return slices.Clone(s.grants) }

// Fingerprint identifies the snapshot: equal sets give equal fingerprints.
func (s CapabilitySet) Fingerprint() string {
	d := newDigest("demiurge.capabilities.v1")
	d.add(s.grants...)
	return d.hex()
}
