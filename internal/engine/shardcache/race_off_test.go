//go:build !race

package shardcache

const raceEnabled = false
