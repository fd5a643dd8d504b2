package main

import "demiurge.dev/cmd/internal/frontview"

// shownOutput is what one call streamed to the terminal as it came
// (frontview.Shown), so that its card or result does not print it a
// second time.
type shownOutput struct{ frontview.Shown }

func (s *shownOutput) keep(stream, text string) { s.Keep(stream, text) }

func (s *shownOutput) leaveOut(body string) string { return s.LeaveOut(body) }
