package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// taskConnection is one connection a network-mode task made through the
// host's egress proxy, as the dispatcher recorded it.
type taskConnection struct {
	Host    string `json:"host"`
	Port    int    `json:"port"`
	Addr    string `json:"addr"`
	Sent    int64  `json:"bytes_sent"`
	Recv    int64  `json:"bytes_received"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
}

// writeTaskNetwork adds a task's connections to `tasks show`: one line
// each, host:port, the address dialled, bytes each way and the verdict.
func writeTaskNetwork(b *strings.Builder, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var conns []taskConnection
	if err := json.Unmarshal(raw, &conns); err != nil {
		fmt.Fprintf(b, "network    (unreadable: %v)\n", err)
		return
	}
	fmt.Fprintf(b, "network    %d connection(s) through the egress proxy\n", len(conns))
	for _, c := range conns {
		line := fmt.Sprintf("  %s %s:%d", c.Verdict, c.Host, c.Port)
		if c.Addr != "" {
			line += " via " + c.Addr
		}
		line += fmt.Sprintf(", %d bytes sent, %d received", c.Sent, c.Recv)
		if c.Reason != "" {
			line += " (" + c.Reason + ")"
		}
		b.WriteString(printable(line, 300) + "\n")
	}
}
