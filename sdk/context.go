package sdk

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"demiurge.dev/shared/redact"
	"demiurge.dev/shared/toolsetv1"
)

// Grant lets one call reach one exact path outside the workspace, after the
// operator approved it.
type Grant struct {
	Path  string
	Write bool
}

// Context carries one call: cancellation, where the workspace is, what the
// host granted, and the channels back to the host.
type Context struct {
	context.Context
	InvocationID string
	Tool         string
	// Workspace is the absolute workspace root. File tools stay inside it
	// except for the exact paths in Grants.
	Workspace string
	Grants    []Grant
	// Paths are the host-resolved path subjects by argument name (see
	// Path and Open): what the host checked, approved and audited.
	Paths map[string]string
	// ArtifactRoot is the directory this call may write artifacts under.
	ArtifactRoot string
	SessionID    string
	TurnID       string
	// Secrets are exact values bound to this call only, by target name.
	Secrets map[string]string
	// Env is the environment the host built for a command this call
	// starts (KEY=VALUE). A tool never gives a child its own environment.
	Env []string
	// SecretsExpire is how long after the call arrived the earliest secret
	// binding expires; 0 when none does.
	SecretsExpire time.Duration
	// Redact are values the host found in the call's arguments (option
	// values, authorization headers, URL userinfo). A tool that persists
	// output redacts them with the bound Secrets; they are never given to
	// a child.
	Redact []redact.Secret
	// OutputCap is the most bytes of one output stream to keep in an
	// artifact for this call; 0 means the tool's default.
	OutputCap int64

	// SandboxPolicy is the OS sandbox a command this call starts must run
	// under (JSON of shared/sandbox.Policy); empty when the host decided
	// none. A tool that cannot enforce it fails the call.
	SandboxPolicy string
	// SkillsRoot is the active core's skills root, the one directory the
	// skill tools work in; "" when the core has no skills.
	SkillsRoot string
	// Timezone is the IANA zone the operator configured (EffectRequest
	// timezone): a command the call starts gets TZ set to it. "": unset.
	Timezone string
	Log      hclog.Logger

	send func(*toolsetv1.InvokeEvent) error
	host func() (toolsetv1.HostServicesClient, error)
}

// ErrNoHost is returned by host-service calls when the host has not
// configured a HostServices connection (as in unit tests of a tool).
var ErrNoHost = errors.New("no host services connection")

// Progress reports how far the call is; fraction is in [0,1], or negative
// when unknown.
func (c *Context) Progress(message string, fraction float64) error {
	return c.emit(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Progress{
		Progress: &toolsetv1.Progress{Message: message, Fraction: fraction}}})
}

// Output streams a chunk of output (stream is e.g. "stdout") to the host.
// Keep chunks bounded; bulk bytes belong in an artifact.
func (c *Context) Output(stream string, data []byte) error {
	return c.emit(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Output{
		Output: &toolsetv1.OutputChunk{Stream: stream, Data: data}}})
}

// Artifact tells the host about a file written under ArtifactRoot.
func (c *Context) Artifact(path, mediaType string, size int64, sha256 string) error {
	return c.emit(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Artifact{
		Artifact: &toolsetv1.ArtifactRef{Path: path, MediaType: mediaType, Size: size, Sha256: sha256}}})
}

// Spawned tells the host about a process group the call started, so that
// the host can end it if this plugin dies without doing so. marker is the
// leader's starttime field of /proc/PID/stat.
func (c *Context) Spawned(pgid int, marker string) error {
	return c.emit(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Spawned{
		Spawned: &toolsetv1.Spawned{Pgid: int32(pgid), StartMarker: marker}}})
}

func (c *Context) emit(ev *toolsetv1.InvokeEvent) error {
	if c.send == nil {
		return nil
	}
	return c.send(ev)
}

// Can asks the host whether this call's tool holds an effect capability.
func (c *Context) Can(capability string) (bool, error) {
	resp, err := c.capability(capability, false)
	if err != nil {
		return false, err
	}
	return resp.GetGranted(), nil
}

// Require asks the host for an effect capability and fails when it is not
// granted; the host records the refusal.
func (c *Context) Require(capability string) error {
	resp, err := c.capability(capability, true)
	if err != nil {
		return err
	}
	if !resp.GetGranted() {
		return fmt.Errorf("capability %s is not granted: %s", capability, resp.GetReason())
	}
	return nil
}

func (c *Context) capability(capability string, require bool) (*toolsetv1.CapabilityResponse, error) {
	if c.host == nil {
		return nil, ErrNoHost
	}
	h, err := c.host()
	if err != nil {
		return nil, err
	}
	return h.Capability(c, &toolsetv1.CapabilityRequest{InvocationId: c.InvocationID, Capability: capability, Require: require})
}

// Deliver sends text to the active turn while the call is still running.
func (c *Context) Deliver(text string) error {
	if c.host == nil {
		return ErrNoHost
	}
	h, err := c.host()
	if err != nil {
		return err
	}
	_, err = h.Deliver(c, &toolsetv1.DeliverRequest{InvocationId: c.InvocationID, Text: text})
	return err
}

// lockedSender serialises stream sends: a tool may emit from several
// goroutines, a gRPC stream may not be written concurrently.
type lockedSender struct {
	mu   sync.Mutex
	send func(*toolsetv1.InvokeEvent) error
}

func (l *lockedSender) Send(ev *toolsetv1.InvokeEvent) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.send(ev)
}
