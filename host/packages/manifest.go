package packages

import (
	"bytes"
	"demiurge.dev/host/egress"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/plugins/disk"
	"demiurge.dev/host/policy"
	"demiurge.dev/shared"
)

// ManifestName is the manifest's file name inside an archive and, as the
// slot's marker, in the core's slot directory.
const ManifestName = installed.MarkerName

// maxManifest bounds package.json: a few declarations.
const maxManifest = 64 << 10

// Manifest is package.json.
type Manifest struct {
	Name          string `json:"name"`
	Version       string `json:"version"`
	Description   string `json:"description,omitempty"`
	Protocol      int    `json:"protocol"`
	ProtocolMinor int    `json:"protocol_minor"`
	// Module is the Go main module the binary was built from; checked in
	// the binary's build information before it is placed.
	Module string `json:"module,omitempty"`
	// Tools are the tools the plugin serves.
	Tools []string `json:"tools"`
	// Slot is the directory under the core's slots.tools the package
	// occupies; two packages with one slot cannot share a core.
	Slot    string   `json:"slot"`
	Secrets []Secret `json:"secrets,omitempty"`
	// Egress are the host names the plugin reaches ("api.example.com" or
	// "*.example.com"), on the operator's package ports: its egress proxy
	// lets nothing else through, so a package's key and queries go only
	// where it said at install. None: the plugin gets no way out at all.
	Egress []string `json:"egress,omitempty"`
}

// maxEgress bounds a package's declared hosts: an API or two.
const maxEgress = 16

// Secret declares a host environment variable bound to calls of Tools,
// under Target, one call at a time.
type Secret = installed.Secret

// Binary is the plugin binary's file name in the archive and when placed.
func (m *Manifest) Binary() string { return disk.BinaryPrefix + m.Name }

// Grants are the capabilities installing the package gives its tools:
// secret.bind:<ENV> for each declared secret, nothing wider.
func (m *Manifest) Grants() []string {
	var out []string
	for _, s := range m.Secrets {
		out = append(out, GrantPrefix+s.Env)
	}
	return out
}

var (
	// Compiled when first used, not at every host start: the bounded
	// repetitions compile into large programs (about 3 ms of init).
	namePattern    = lazyRegexp(`^[a-z][a-z0-9_]{0,63}$`)
	toolPattern    = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)
	envPattern     = lazyRegexp(`^[A-Z_][A-Z0-9_]{0,127}$`)
	semverPattern  = lazyRegexp(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	modulePattern  = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9._~/-]{0,254}$`)
	reservedPrefix = []string{"LD_", "DYLD_", "DEMIURGE_", "GO", "PYTHON", "NODE_", "BASH_", "GIT_"}
	// reservedEnv (with policy.ExecControlEnvKey) are variables that steer
	// execution rather than hold a credential; binding one would hand a
	// package control, not a key.
	reservedEnv = []string{"PATH", "HOME", "SHELL", "IFS", "ENV", "BASH_ENV", "COMSPEC", "PROMPT_COMMAND", "TMPDIR", "USER", "LOGNAME", "PWD", "LANG", "TZ"}
)

// ParseManifest reads and validates package.json. Errors name the field.
func ParseManifest(b []byte) (*Manifest, error) {
	if len(b) > maxManifest {
		return nil, fmt.Errorf("%s is %d bytes; at most %d are allowed", ManifestName, len(b), maxManifest)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestName, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: text after the JSON object", ManifestName)
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestName, err)
	}
	return &m, nil
}

func (m *Manifest) validate() error {
	switch {
	case !namePattern().MatchString(m.Name):
		return fmt.Errorf("name %q must be lower-case letters, digits and '_', starting with a letter", m.Name)
	case !semverPattern().MatchString(m.Version):
		return fmt.Errorf("version %q is not a semantic version like 1.2.3", m.Version)
	case m.Protocol <= 0 || m.ProtocolMinor < 0:
		return fmt.Errorf("protocol %d.%d is not a toolset protocol version", m.Protocol, m.ProtocolMinor)
	case m.Module != "" && !modulePattern().MatchString(m.Module):
		return fmt.Errorf("module %q is not a Go module path", m.Module)
	case len(m.Tools) == 0:
		return fmt.Errorf("tools is empty; a package serves at least one tool")
	case !namePattern().MatchString(m.Slot):
		return fmt.Errorf("slot %q must be one directory name of lower-case letters, digits and '_'", m.Slot)
	case len(m.Description) > 500:
		return fmt.Errorf("description is longer than 500 bytes")
	}
	for _, t := range m.Tools {
		if !toolPattern().MatchString(t) {
			return fmt.Errorf("tools: %q is not a tool name", t)
		}
	}
	if err := checkEgress(m.Egress); err != nil {
		return err
	}
	targets := map[string]bool{}
	for i, s := range m.Secrets {
		if err := checkSecretEnv(s.Env); err != nil {
			return fmt.Errorf("secrets[%d].env: %w", i, err)
		}
		if !envPattern().MatchString(s.Target) || targets[s.Target] {
			return fmt.Errorf("secrets[%d].target %q must be a distinct upper-case name", i, s.Target)
		}
		targets[s.Target] = true
		if len(s.Tools) == 0 {
			return fmt.Errorf("secrets[%d].tools is empty; name the tools the secret is bound to", i)
		}
		for _, t := range s.Tools {
			if !slices.Contains(m.Tools, t) {
				return fmt.Errorf("secrets[%d].tools: %q is not one of the package's tools", i, t)
			}
		}
	}
	return nil
}

// checkEgress accepts host names and *.domain wildcards, each once: no
// "*" (any host), no port (the operator's package ports decide), no URL.
func checkEgress(hosts []string) error {
	if len(hosts) > maxEgress {
		return fmt.Errorf("egress names %d hosts; at most %d are allowed", len(hosts), maxEgress)
	}
	seen := map[string]bool{}
	for i, h := range hosts {
		r, err := egress.ParseRule(h)
		switch {
		case err != nil:
			return fmt.Errorf("egress[%d]: %v", i, err)
		case r.Host == "*":
			return fmt.Errorf("egress[%d]: %q would let the plugin reach any host; name the hosts it needs", i, h)
		case r.Port != 0:
			return fmt.Errorf("egress[%d]: %q names a port; name the host only (the operator's %s decide the ports)", i, h, "DEMIURGE_PACKAGE_PORTS")
		case seen[r.Host]:
			return fmt.Errorf("egress[%d]: %q is named twice", i, h)
		}
		seen[r.Host] = true
	}
	return nil
}

// checkSecretEnv refuses names that are not one exact credential variable.
func checkSecretEnv(name string) error {
	if strings.Contains(name, "*") {
		return fmt.Errorf("%q: a secret is bound by its exact name; wildcards are refused", name)
	}
	if !envPattern().MatchString(name) {
		return fmt.Errorf("%q is not an upper-case environment variable name", name)
	}
	if slices.Contains(reservedEnv, name) || policy.ExecControlEnvKey(name) {
		return fmt.Errorf("%s controls execution and is never bound as a secret", name)
	}
	for _, p := range reservedPrefix {
		if strings.HasPrefix(name, p) {
			return fmt.Errorf("%s: variables starting with %s control execution or the host and are never bound as secrets", name, p)
		}
	}
	return nil
}

// ProtocolError says a package was built for a protocol this host does not
// speak; the package is refused before anything of it runs.
type ProtocolError struct {
	Package         string
	Protocol, Minor int
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("package %s is built for toolset protocol %d.%d; this host speaks protocol %d (minor %d and below): it was refused and not run; install a build of %s for protocol %d",
		e.Package, e.Protocol, e.Minor, shared.ProtocolVersion, shared.ProtocolMinor, e.Package, shared.ProtocolVersion)
}

// checkProtocol accepts the host's protocol version at a minor it knows:
// a higher minor may rely on additions this host lacks.
func (m *Manifest) checkProtocol() error {
	if m.Protocol != shared.ProtocolVersion || m.ProtocolMinor > shared.ProtocolMinor {
		return &ProtocolError{Package: m.Name, Protocol: m.Protocol, Minor: m.ProtocolMinor}
	}
	return nil
}

// lazyRegexp compiles expr once, on first use.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
