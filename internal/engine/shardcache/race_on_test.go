//go:build race

package shardcache

const raceEnabled = true
