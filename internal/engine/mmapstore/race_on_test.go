//go:build race

package mmapstore

const raceEnabled = true
