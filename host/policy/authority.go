package policy

// Authority is who a call runs for and under what grants. Session allows,
// catalogs and MCP connections are bound to its fingerprint, so that any
// change of principal, session, core revision, capabilities or effective
// policy leaves them behind.
type Authority struct {
	Principal    string
	Session      string
	CoreRevision string
	Capabilities CapabilitySet
	// PolicyFingerprint identifies the effective policy (metadata
	// overrides, approval rules) the session was started with.
	PolicyFingerprint string
}

// Fingerprint is a sha256 over every field.
func (a Authority) Fingerprint() string {
	d := newDigest("demiurge.authority.v1")
	d.add(a.Principal, a.Session, a.CoreRevision, a.Capabilities.Fingerprint(), a.PolicyFingerprint)
	return d.hex()
}
