package plugins

// Verified is one plugin's outcome of `plugins verify`.
type Verified struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	SHA256 string `json:"sha256,omitempty"`
	Error  string `json:"error,omitempty"`
}

// VerifyAll hashes the named plugins (every discovered one when names is
// empty) and compares each with its recorded sum.
func (m *Manager) VerifyAll(names []string) []Verified {
	if len(names) == 0 {
		for _, cand := range m.Candidates() {
			names = append(names, cand.Name)
		}
	}
	out := make([]Verified, 0, len(names))
	for _, n := range names {
		actual, ok, err := m.Verify(n)
		r := Verified{Name: n, SHA256: actual, OK: err == nil && ok}
		switch {
		case err != nil:
			r.Error = err.Error()
		case !ok:
			r.Error = "sha256 differs from the recorded one; rebuild it, or reinstall it with 'demiurge plugins install PATH'"
		}
		out = append(out, r)
	}
	return out
}
