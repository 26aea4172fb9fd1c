//go:build !unix

package machine

func unameRelease() string { return "" }
