#!/usr/bin/env bash
# What importing the engines costs a new module: a module at go 1.22 that
# imports shardcache and mmapstore from this checkout (a replace
# directive), tidied with an empty module cache. Prints the modules
# downloaded (zips and go.mod files), the go.sum lines, and the go line
# tidy leaves, then builds the module.
#
#   scripts/import-cost.sh            modules from the local module cache
#   GOPROXY=https://proxy.golang.org scripts/import-cost.sh
#
# The default proxy is this machine's module cache (file://), so the count
# needs no network; the modules must be in it (go mod download first).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
proxy=${GOPROXY:-file://$(go env GOMODCACHE)/cache/download}
mkdir "$work/mod"
cd "$work/mod"
cat >go.mod <<MOD
module example.com/newcomer

go 1.22

replace github.com/cachebench/cachebench => $repo
MOD
cat >main.go <<'GO'
package main

import (
	"fmt"

	"github.com/cachebench/cachebench/mmapstore"
	"github.com/cachebench/cachebench/shardcache"
)

func main() {
	c, err := shardcache.New(shardcache.Config{MaxBytes: 1 << 20})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	_ = c.Set([]byte("k"), []byte("v"))
	v, ok := c.Get(nil, []byte("k"))
	fmt.Println(string(v), ok)
	var _ *mmapstore.Store
}
GO
export GOMODCACHE=$work/modcache GOFLAGS=-mod=mod GOPROXY=$proxy GOSUMDB=off GOTOOLCHAIN=local
go mod tidy 2>&1 | grep -v '^go: \(downloading\|found\)' || true
echo "modules downloaded: $(find "$GOMODCACHE/cache/download" -name '*.zip' | wc -l) zips, $(find "$GOMODCACHE/cache/download" -name '*.mod' | wc -l) go.mod files"
find "$GOMODCACHE/cache/download" -name '*.zip' | sed 's|.*/download/|  |; s|/@v/| |; s|\.zip$||' | sort
echo "go.sum lines: $(wc -l <go.sum)"
grep -E '^(go|toolchain) ' go.mod
go build -o /dev/null . && echo "builds"
