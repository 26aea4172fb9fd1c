//go:build !unix

package report

func unameRelease() string { return "" }
