package providertest

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Main runs the command line of a providertest process:
//
//	providertest serve --kind openai --script FILE.json [--addr 127.0.0.1:0]
//	                   [--url-file FILE] [--requests FILE]
//
// It prints the server's URL as the first line of stdout (and writes it,
// newline-free, to --url-file once listening, for a script that started it
// in the background), appends each request as one JSON line to
// --requests, and serves until SIGINT or SIGTERM. It returns the exit
// code: 0 on a signal, 2 on bad usage, 1 on other failures.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprintln(stderr, "usage: providertest serve --kind KIND --script FILE.json [--addr HOST:PORT] [--url-file FILE] [--requests FILE]")
		return 2
	}
	fs := flag.NewFlagSet("providertest serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("kind", "", "wire format: openai, openai-compatible, openai-responses, anthropic, gemini")
	script := fs.String("script", "", "script JSON file (see the providertest package documentation)")
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	urlFile := fs.String("url-file", "", "file to write the URL to once listening")
	reqFile := fs.String("requests", "", "file to append each request to, one JSON line each")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *kind == "" || *script == "" {
		fmt.Fprintln(stderr, "providertest serve: --kind and --script are required")
		return 2
	}
	steps, err := LoadScript(*script)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	s, err := newServer(*kind, steps)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "providertest serve:", err)
		return 1
	}
	s.srv.Listener.Close()
	s.srv.Listener = ln
	if *reqFile != "" {
		f, err := os.OpenFile(*reqFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(stderr, "providertest serve:", err)
			return 1
		}
		defer f.Close()
		var mu sync.Mutex
		s.onRequest = func(r Request) {
			b, _ := json.Marshal(r)
			mu.Lock()
			defer mu.Unlock()
			f.Write(append(b, '\n'))
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	s.srv.Start()
	s.URL = s.srv.URL
	defer s.Close()
	if *urlFile != "" {
		if err := writeAtomic(*urlFile, s.URL); err != nil {
			fmt.Fprintln(stderr, "providertest serve:", err)
			return 1
		}
	}
	fmt.Fprintln(stdout, s.URL)
	<-sig
	return 0
}

// writeAtomic writes via a renamed temporary file, so a reader polling
// for the file never sees half a URL.
func writeAtomic(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
