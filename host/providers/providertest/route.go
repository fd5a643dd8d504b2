package providertest

import "bytes"

// routed reports whether any step is marked with for (s.mu held).
func (s *Server) routed() bool {
	for _, st := range s.steps {
		if st.For != "" {
			return true
		}
	}
	return false
}

// route takes the next unused step for body: of the first marker the body
// contains, in script order, else an unmarked one (s.mu held). With
// repeat, a route whose steps are used up answers its last step again.
func (s *Server) route(body []byte) (Step, bool) {
	if len(s.used) < len(s.steps) {
		s.used = append(s.used, make([]bool, len(s.steps)-len(s.used))...)
	}
	marker := ""
	for _, st := range s.steps {
		if st.For != "" && bytes.Contains(body, []byte(st.For)) {
			marker = st.For
			break
		}
	}
	last := -1
	for i, st := range s.steps {
		if st.For != marker {
			continue
		}
		last = i
		if !s.used[i] {
			s.used[i] = true
			return st, true
		}
	}
	if s.repeat && last >= 0 {
		return s.steps[last], true
	}
	return Step{}, false
}
