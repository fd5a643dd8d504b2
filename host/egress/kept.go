package egress

import "demiurge.dev/shared/textclip"

// What a proxy keeps of its connections for the call's audit (a
// command's proxy; a plugin's keeps nothing, Config.Unkept) is bounded,
// so a command opening 100,000 connections cannot grow the host's
// memory: the first maxKeptEvents connections in full, then a Folded
// summary of the rest (how many, their verdicts and bytes, and how many
// went to each of at most maxFoldedHosts hosts, then how many to the
// others). Every string of an event is clipped too (a CONNECT's host may
// be as long as the request head).
const (
	maxKeptEvents  = 256
	maxFoldedHosts = 32
	maxEventString = 512
)

// Folded sums the connections past the first maxKeptEvents.
type Folded struct {
	Count    int            `json:"count"`
	Sent     int64          `json:"bytes_sent"`
	Recv     int64          `json:"bytes_received"`
	Verdicts map[string]int `json:"verdicts,omitempty"`
	// Hosts are the first maxFoldedHosts hosts (HOST:PORT) the folded
	// connections asked for, in the order first seen.
	Hosts []FoldedHost `json:"hosts,omitempty"`
	// Others counts the folded connections to any other host; OthersReached
	// those of them that were not refused.
	Others        int `json:"other_hosts_connections,omitempty"`
	OthersReached int `json:"other_hosts_reached,omitempty"`
}

// FoldedHost is how many folded connections asked for one host, and how
// many of them were not refused (they may have brought bytes back).
type FoldedHost struct {
	Host    string `json:"host"`
	Port    uint16 `json:"port"`
	Count   int    `json:"count"`
	Reached int    `json:"reached"`
}

// fold adds ev to f.
func (f *Folded) fold(ev Event) {
	f.Count++
	f.Sent += ev.Sent
	f.Recv += ev.Recv
	if f.Verdicts == nil {
		f.Verdicts = map[string]int{}
	}
	// The verdicts are the proxy's own three words, so the map stays small.
	f.Verdicts[ev.Verdict]++
	reached := 0
	if ev.Verdict != "refused" {
		reached = 1
	}
	for i := range f.Hosts {
		if h := &f.Hosts[i]; h.Host == ev.Host && h.Port == ev.Port {
			h.Count++
			h.Reached += reached
			return
		}
	}
	if len(f.Hosts) < maxFoldedHosts {
		f.Hosts = append(f.Hosts, FoldedHost{Host: ev.Host, Port: ev.Port, Count: 1, Reached: reached})
		return
	}
	f.Others++
	f.OthersReached += reached
}

// clipEvent bounds each string an event holds.
func clipEvent(ev Event) Event {
	ev.Host = clip(ev.Host)
	ev.Method = clip(ev.Method)
	ev.Reason = clip(ev.Reason)
	return ev
}

func clip(s string) string { return textclip.Clip(s, maxEventString) }
