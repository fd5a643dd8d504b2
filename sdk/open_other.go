//go:build !unix

package sdk

const openNonBlock = 0
