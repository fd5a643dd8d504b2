package catalog

import (
	"encoding/json"
	"fmt"
)

// Risk is ordered: low < medium < high.
type Risk int

const (
	RiskLow Risk = iota
	RiskMedium
	RiskHigh
)

var riskNames = [...]string{"low", "medium", "high"}

func (r Risk) String() string {
	if r < RiskLow || r > RiskHigh {
		return fmt.Sprintf("risk(%d)", int(r))
	}
	return riskNames[r]
}

// ParseRisk reads low, medium or high.
func ParseRisk(s string) (Risk, error) {
	for i, n := range riskNames {
		if s == n {
			return Risk(i), nil
		}
	}
	return RiskHigh, fmt.Errorf("unknown risk %q (want low, medium or high)", s)
}

// MaxRisk is the stricter of two risks.
func MaxRisk(a, b Risk) Risk { return max(a, b) }

func (r Risk) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

func (r *Risk) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParseRisk(s)
	*r = v
	return err
}

// ApprovalPolicy is ordered: auto < prompt < deny.
type ApprovalPolicy int

const (
	ApprovalAuto ApprovalPolicy = iota
	ApprovalPrompt
	ApprovalDeny
)

var approvalNames = [...]string{"auto", "prompt", "deny"}

func (a ApprovalPolicy) String() string {
	if a < ApprovalAuto || a > ApprovalDeny {
		return fmt.Sprintf("approval(%d)", int(a))
	}
	return approvalNames[a]
}

// ParseApprovalPolicy reads auto, prompt or deny.
func ParseApprovalPolicy(s string) (ApprovalPolicy, error) {
	for i, n := range approvalNames {
		if s == n {
			return ApprovalPolicy(i), nil
		}
	}
	return ApprovalDeny, fmt.Errorf("unknown approval policy %q (want auto, prompt or deny)", s)
}

// MaxApproval is the stricter of two policies.
func MaxApproval(a, b ApprovalPolicy) ApprovalPolicy { return max(a, b) }

func (a ApprovalPolicy) MarshalJSON() ([]byte, error) { return json.Marshal(a.String()) }

func (a *ApprovalPolicy) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParseApprovalPolicy(s)
	*a = v
	return err
}
