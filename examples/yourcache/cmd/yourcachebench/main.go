// Command yourcachebench is cachebench with yourcache among its adapters.
package main

import (
	"example.com/yourcache"
	"github.com/cachebench/cachebench"
)

var factory = cachebench.Factory{Name: "yourcache", Kind: cachebench.InMemory,
	Description: "example.com/yourcache: a map bounded by entries, FIFO eviction",
	New:         func(o cachebench.Options) (cachebench.Adapter, error) { return yourcache.New(o.Entries), nil }}

func init() { cachebench.Register(factory) }

func main() { cachebench.Main() }
