package shardcache_test

import (
	"fmt"
	"log"
	"time"

	"github.com/cachebench/cachebench/shardcache"
)

func ExampleNew() {
	c, err := shardcache.New(shardcache.Config{MaxBytes: 64 << 20})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	if err := c.Set([]byte("greeting"), []byte("hello")); err != nil {
		log.Fatal(err)
	}
	// Get appends to a buffer the caller owns and reuses: no allocation.
	buf := make([]byte, 0, 64)
	buf, found := c.Get(buf[:0], []byte("greeting"))
	fmt.Printf("%s %v\n", buf, found)
	_, found = c.Get(buf[:0], []byte("missing"))
	fmt.Println(found)
	// Output:
	// hello true
	// false
}

func ExampleCache_SetWithTTL() {
	c, err := shardcache.New(shardcache.Config{MaxBytes: 1 << 20})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.SetWithTTL([]byte("session"), []byte("token"), time.Hour); err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Has([]byte("session")), c.Len())
	// Output: true 1
}

// OnEvict sees every entry that leaves the cache other than by being
// overwritten, with the reason.
func ExampleConfig_onEvict() {
	c, err := shardcache.New(shardcache.Config{
		MaxBytes: 1 << 20,
		OnEvict: func(key, _ []byte, reason shardcache.EvictReason) {
			fmt.Printf("%s left: %v\n", key, reason)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	_ = c.Set([]byte("k"), []byte("v"))
	c.Delete([]byte("k"))
	// Output: k left: deleted
}
