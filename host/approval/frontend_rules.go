package approval

import "fmt"

// WithCommandLine is rules with the command-line rules (Origin
// OriginCommandLine) replaced by the specs a front end's operator gave
// on its own command line: a long-lived host serves front ends started
// with different --approve flags, and each call is judged by its own
// front end's, beside the core's standing rules.
func WithCommandLine(rules []Rule, specs []string) ([]Rule, error) {
	out := make([]Rule, 0, len(rules)+len(specs))
	for _, r := range rules {
		if r.Origin != OriginCommandLine {
			out = append(out, r)
		}
	}
	for _, spec := range specs {
		r, err := ParseRule(spec)
		if err != nil {
			return nil, fmt.Errorf("--approve %q: %w", spec, err)
		}
		r.Origin = OriginCommandLine
		out = append(out, r)
	}
	return out, nil
}
