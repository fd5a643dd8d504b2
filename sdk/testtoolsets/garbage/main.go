// Command garbage prints to stdout before the handshake line, which breaks
// a go-plugin start; the host must refuse it with a clear error.
package main

import (
	"fmt"

	"demiurge.dev/sdk"
)

func main() {
	fmt.Println("hello from a plugin that should not print here")
	sdk.Serve(sdk.Toolset{Name: "garbage", Version: "0.0.1", Tools: func() []sdk.Tool { return nil }})
}
