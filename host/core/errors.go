package core

import (
	"fmt"
	"regexp"
	"strconv"
)

// LoadError is every error Load, LoadFile and the parser return. It names
// the file, the line and column (1-based; 0 when the error is not tied to a
// place in the file) and the dotted field path, so that an operator can go
// straight to the mistake.
type LoadError struct {
	File   string
	Line   int
	Column int
	// Field is the dotted path of the offending key, for example
	// tools.metadata.web_extract.risk or capabilities[2]; "" for errors
	// about the whole file.
	Field string
	Msg   string
	// Err is the underlying error (an *fs.PathError, say), when there is one.
	Err error
}

func (e *LoadError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
		if e.Column > 0 {
			s += ":" + strconv.Itoa(e.Column)
		}
	}
	s += ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}

func (e *LoadError) Unwrap() error { return e.Err }

// yamlLine matches the "yaml: line N: " prefix of the YAML parser's syntax
// errors, so that the line lands in LoadError.Line rather than in the text.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxError turns a YAML parser error into a LoadError.
func syntaxError(file string, err error) *LoadError {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else if len(msg) > 6 && msg[:6] == "yaml: " {
		msg = msg[6:]
	}
	return &LoadError{File: file, Line: line, Msg: fmt.Sprintf("invalid YAML: %s", msg), Err: err}
}
