package main

import "demiurge.dev/cmd/internal/termsession"

// didYouMeanSuffix is "; did you mean X?" when a candidate is near name
// (termsession.DidYouMean), else "".
func didYouMeanSuffix(name string, candidates []string) string {
	return termsession.DidYouMean(name, candidates)
}
