package main

import "strings"

// maxShownKept bounds what a shownOutput keeps of the streamed output.
const maxShownKept = 1 << 20

// shownOutput is what one call streamed to the terminal as it came, per
// stream, so that its card or result does not print it a second time.
// Past maxShownKept it keeps nothing (then the card shows it all).
type shownOutput struct {
	streams map[string]*strings.Builder
	over    bool
}

func (s *shownOutput) keep(stream, text string) {
	if s.over {
		return
	}
	if s.streams == nil {
		s.streams = map[string]*strings.Builder{}
	}
	b := s.streams[stream]
	if b == nil {
		b = &strings.Builder{}
		s.streams[stream] = b
	}
	if b.Len()+len(text) > maxShownKept {
		s.over, s.streams = true, nil
		return
	}
	b.WriteString(text)
}

// leaveOut is body with each stream's output that was already shown
// replaced by a note, where body holds it verbatim once; anything else
// is left as it is.
func (s *shownOutput) leaveOut(body string) string {
	for _, b := range s.streams {
		text := strings.TrimRight(b.String(), "\n")
		if strings.TrimSpace(text) != "" && strings.Count(body, text) == 1 {
			body = strings.Replace(body, text, "(shown above)", 1)
		}
	}
	return body
}
