package policy

import "fmt"

// CapabilityError says which required capability the authority lacks.
type CapabilityError struct {
	Missing string
}

func (e *CapabilityError) Error() string {
	return fmt.Sprintf("capability %s is not granted to this session; grant it in agent.yaml capabilities", e.Missing)
}

// Gate checks that every required capability is granted, in order, and
// returns a *CapabilityError for the first one that is not. Empty strings
// stand for "no capability" and are skipped. pathGranted (nil for none)
// is what the operator's path-scoped grants give the one tool asking.
func Gate(required []string, a Authority, pathGranted func(string) bool) error {
	for _, c := range required {
		if c == "" {
			continue
		}
		if !a.Capabilities.Has(c) && (pathGranted == nil || !pathGranted(c)) {
			return &CapabilityError{Missing: c}
		}
	}
	return nil
}
