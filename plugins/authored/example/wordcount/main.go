// Command wordcount is an authored tool written as an executable: it speaks
// the worker protocol (newline-delimited JSON on stdin and stdout) itself,
// with no Python involved. Place it in a tool directory with
//
//	entrypoint: exec:wordcount
//
// It counts the words, lines and bytes of its "text" argument, and shows
// the protocol's host requests: with "notify" set it delivers a progress
// line to the turn and asks the host whether it may read files.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type message struct {
	Type       string          `json:"type"`
	ID         string          `json:"id,omitempty"`
	Protocol   int             `json:"protocol,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	Capability string          `json:"capability,omitempty"`
	Text       string          `json:"text,omitempty"`
	Granted    bool            `json:"granted,omitempty"`
	Value      any             `json:"value,omitempty"`
	Code       string          `json:"code,omitempty"`
	Error      string          `json:"error,omitempty"`
}

type args struct {
	Text   string `json:"text"`
	Notify bool   `json:"notify"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	out := json.NewEncoder(os.Stdout)
	send := func(m message) {
		if err := out.Encode(m); err != nil {
			os.Exit(1)
		}
	}
	receive := func() message {
		if !in.Scan() {
			os.Exit(0) // the runtime closed the pipe
		}
		var m message
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "wordcount: bad message:", err)
			os.Exit(1)
		}
		return m
	}
	send(message{Type: "ready", Protocol: 1})
	for {
		m := receive()
		if m.Type != "call" {
			continue
		}
		var a args
		if err := json.Unmarshal(m.Args, &a); err != nil {
			send(message{Type: "error", ID: m.ID, Code: "bad_arguments", Error: err.Error()})
			continue
		}
		canRead := false
		if a.Notify {
			send(message{Type: "deliver", ID: m.ID, Text: "counting"})
			receive()
			send(message{Type: "capability", ID: m.ID, Capability: "fs.read"})
			canRead = receive().Granted
		}
		words, lines := len(strings.Fields(a.Text)), strings.Count(a.Text, "\n")
		value := map[string]any{
			"content": fmt.Sprintf("%d words, %d lines, %d bytes", words, lines, len(a.Text)),
			// The runtime ignores lifecycle fields an authored tool returns.
			"executionStarted": false,
		}
		if a.Notify {
			value["display_output"] = fmt.Sprintf("%s (may read files: %v)", value["content"], canRead)
		}
		send(message{Type: "result", ID: m.ID, Value: value})
	}
}
