package approval

import (
	"context"
	"sync"
	"testing"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
)

// clock is a settable time source for TTL tests.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// scripted answers from a fixed list and counts how often it was asked;
// it stands in for an operator, not for any of this package's parts.
type scripted struct {
	answers []Answer
	err     error
	asked   int
	last    Request
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Ask(_ context.Context, req Request) (Answer, error) {
	s.asked++
	s.last = req
	if s.err != nil {
		return Deny, s.err
	}
	if len(s.answers) == 0 {
		return Deny, nil
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

func authority(t testing.TB, session, core string, grants ...string) policy.Authority {
	t.Helper()
	caps, err := policy.NewCapabilitySet(grants)
	if err != nil {
		t.Fatal(err)
	}
	return policy.Authority{Principal: "local", Session: session, CoreRevision: core, Capabilities: caps, PolicyFingerprint: "p1"}
}

// writeRequest assesses a real write_file call, so fingerprints and
// subjects are what dispatch would pass.
func writeRequest(t testing.TB, auth policy.Authority, path string) Request {
	t.Helper()
	spec := catalog.ToolSpec{
		Name: "write_file", Effect: catalog.EffectWrite,
		Metadata: catalog.Metadata{Risk: catalog.RiskMedium, Capability: "fs.write", ApprovalPolicy: catalog.ApprovalPrompt},
		Subjects: []catalog.Subject{{Kind: catalog.SubjectPath, Arg: "path", Access: catalog.AccessWrite}},
	}
	a, err := policy.Assess(spec, spec.Metadata, map[string]any{"path": path, "content": "hi"}, policy.Workspace{Root: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	return Request{
		Tool: spec.Name, CallID: "c1", Risk: a.Risk, Policy: a.Approval, Block: a.Block, Reasons: a.Reasons,
		Preview: `{"path":"` + path + `"}`, Fingerprint: a.Fingerprint, Authority: auth,
		SessionAllowable: true, Subjects: a.Subjects,
	}
}

// waitABit yields to other goroutines while a test polls for a state.
func waitABit() { time.Sleep(time.Millisecond) }
