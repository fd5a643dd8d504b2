package policy

import (
	"context"
	"errors"

	"demiurge.dev/catalog"
	"demiurge.dev/shared/netpolicy"
)

// ResourceKeyNet prefixes the resource key of a network origin.
const ResourceKeyNet = "net:"

// assessURL applies the URL policy before approval. It needs no DNS: what
// is refused by the URL alone (a scheme other than http(s), userinfo, an
// ambiguous authority, an IP literal of a refused class, localhost and
// metadata names) is denied here; a name's addresses are checked by the
// plugin after approval, on every request and redirect. The fact's Value
// becomes the credential-free origin summary, so that a prompt shows
// scheme://host[:port] and never userinfo, path, query or fragment. It
// returns what the fingerprint covers: the normalised URL, so that a
// session allow for one page does not approve another.
func (a *Assessment) assessURL(fact *SubjectFact) string {
	raw := fact.Value
	origin := netpolicy.OriginSummary(raw)
	fact.Value = origin
	t, err := netpolicy.Check(raw)
	if err != nil {
		reason := "the URL is refused"
		var re *netpolicy.RefusedError
		if errors.As(err, &re) {
			reason = re.Reason // the origin leads already
		}
		a.raise(catalog.RiskHigh, catalog.ApprovalDeny, "fetches "+origin+": "+reason)
		return "refused\x00" + raw
	}
	a.addKey(ResourceKeyNet + t.Origin())
	// A fetch of a model-chosen URL is never low risk and always asks
	// (unless a rule or the operator allows it), whatever a plugin claims.
	reason := "fetches " + t.Origin()
	if !t.IsLiteral() {
		reason += " (its addresses are checked after approval)"
	}
	a.raise(catalog.RiskMedium, catalog.ApprovalPrompt, reason)
	return t.URL()
}

// PreviewArgs returns args with every URL subject's argument replaced by
// the credential-free origin summary the assessment derived, for the
// approval preview: before approval a prompt shows scheme://host[:port]
// only, never userinfo, path, query or fragment. args itself is not
// changed; without URL subjects it is returned as is.
func (a Assessment) PreviewArgs(args map[string]any) map[string]any {
	var out map[string]any
	for _, f := range a.Subjects {
		if f.Kind != string(catalog.SubjectURL) {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(args))
			for k, v := range args {
				out[k] = v
			}
		}
		out[f.Arg] = f.Value
	}
	if out == nil {
		return args
	}
	return out
}

// URLVerdict is the URL policy's verdict on one URL, for `demiurge policy
// check-url`. It never holds userinfo, path, query or fragment.
type URLVerdict struct {
	// Decision is "allow", "block", or "unresolved" for a name whose
	// addresses were not looked up (they are checked when it is fetched):
	// the shell guard's vocabulary (allow, prompt, block) where it applies.
	Decision string `json:"decision"`
	Origin   string `json:"origin"`
	// Host is the normalised host: what the legacy numeric IPv4 forms,
	// IDNA and trailing dots come to.
	Host string `json:"host,omitempty"`
	// Class is the refused class, "public" when allowed.
	Class string `json:"class,omitempty"`
	// Reasons say why, one sentence each (a list, as the shell guard's).
	Reasons   []string `json:"reasons"`
	Resolved  bool     `json:"resolved"`
	Addresses []string `json:"addresses,omitempty"`
}

// CheckURL gives the URL policy's verdict on raw. DNS is used only when
// resolve is true; otherwise a name is "unresolved".
func CheckURL(ctx context.Context, raw string, resolve bool) URLVerdict {
	v := URLVerdict{Origin: netpolicy.OriginSummary(raw)}
	refuse := func(err error) URLVerdict {
		v.Decision, v.Class, v.Reasons = "block", "invalid-url", []string{err.Error()}
		var re *netpolicy.RefusedError
		if errors.As(err, &re) {
			v.Class, v.Reasons = re.Class, []string{re.Reason}
		}
		return v
	}
	t, err := netpolicy.Check(raw)
	if err != nil {
		// The normalised host is shown for a refused URL too: that is
		// where the legacy numeric forms matter.
		if pt, perr := netpolicy.Parse(raw); perr == nil {
			v.Origin, v.Host = pt.Origin(), pt.Host
		}
		return refuse(err)
	}
	v.Origin, v.Host = t.Origin(), t.Host
	if !t.IsLiteral() && !resolve {
		v.Decision = "unresolved"
		v.Reasons = []string{"the name's addresses are checked when it is fetched; pass --resolve to look them up now"}
		return v
	}
	addrs, err := netpolicy.New(netpolicy.Options{}).Resolve(ctx, t)
	v.Resolved = !t.IsLiteral()
	if err != nil {
		return refuse(err)
	}
	v.Decision, v.Class = "allow", netpolicy.ClassPublic
	for _, a := range addrs {
		v.Addresses = append(v.Addresses, a.String())
	}
	v.Reasons = []string{"every address is public"}
	return v
}
