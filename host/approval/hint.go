package approval

import "fmt"

// approveHint says how the operator approves what a DenyAll provider
// denied: its own Approve text, else a terminal or an --approve rule.
func approveHint(p Provider, rule string) string {
	if d, ok := denyAllOf(p); ok && d.Approve != "" {
		return fmt.Sprintf(d.Approve, rule)
	}
	return "run in a terminal or pass --approve allow:" + rule
}

// onlyAnAnswer says who can approve what no rule covers.
func onlyAnAnswer(p Provider) string {
	if d, ok := denyAllOf(p); ok && d.Approve != "" {
		return "only the operator's own answer approves it (from an MCP client that supports elicitation)"
	}
	return "run in a terminal"
}

func denyAllOf(p Provider) (DenyAll, bool) {
	switch d := p.(type) {
	case DenyAll:
		return d, true
	case *DenyAll:
		return *d, true
	}
	return DenyAll{}, false
}
