package main

import (
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// TestTTYChatStreamsCountsAndStops: on a real terminal the model's answer
// shows as it streams, a part of a line at a time (the input stays live);
// each turn ends with its tokens and the session's, and /usage sums the
// session; a mistyped command gets "did you mean"; a /call's output shows
// once, not again in its card; /stop says who stopped the call, not
// "context canceled".
func TestTTYChatStreamsCountsAndStops(t *testing.T) {
	steps, err := providertest.ParseScript([]byte(`[
  {"text": ["Hel", "lo, ", "streaming ", "world."], "chunk_delay_ms": 500, "usage": {"input_tokens": 1200, "output_tokens": 34}},
  {"text": ["Second."], "usage": {"input_tokens": 1300, "output_tokens": 6}}
]`))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := chatOnTTY(t, steps, t.TempDir())

	s.line("say hello")
	s.see("Hel")
	if after := s.since(s.at); strings.Contains(after, "world.") {
		t.Fatalf("the whole answer came at once: %q", after)
	}
	s.see("lo, ")
	s.see("world.")
	s.see("tokens: 1,200 in, 34 out this turn · 1,200 in, 34 out this session")
	s.line("again")
	s.see("Second.")
	s.see("tokens: 1,300 in, 6 out this turn · 2,500 in, 40 out this session")
	s.line("/usage")
	s.see("this session: 2,500 in, 40 out over 2 turn(s)")

	s.line("/usag")
	s.see(`unknown command /usag; did you mean "/usage"?`)

	from := s.at
	s.line(`/call terminal {"command":"echo marker-$((6*7))"}`)
	s.see("(shown above)")
	s.see("> ")
	if n := strings.Count(s.since(from), "marker-42"); n != 1 {
		t.Fatalf("the call's output showed %d times:\n%s", n, s.since(from))
	}

	from = s.at
	s.line(`/call terminal {"command":"echo go-$((5*5)); sleep 60"}`)
	s.see("go-25")
	time.Sleep(200 * time.Millisecond)
	s.keys("/stop\r")
	s.see("[stopped]")
	s.see("stopped by /stop")
	if strings.Contains(s.since(from), "context canceled") {
		t.Fatalf("/stop reported as a cancelled context:\n%s", s.since(from))
	}
	s.line("/quit")
	s.waitExit(20 * time.Second)
}
