package dispatch

import "strings"

// blockedWhy is a block's reason without the word the message already
// says: "blocked: blocked command: rm -r of /" reads "rm -r of /".
func blockedWhy(reason string) string {
	reason = strings.TrimPrefix(reason, "blocked: ")
	return strings.ReplaceAll(reason, "blocked command: ", "")
}
