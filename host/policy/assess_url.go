package policy

import (
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
			reason = re.Error()
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
