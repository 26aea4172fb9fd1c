package shardcache

import "time"

func (c *Cache) cleanupLoop(interval time.Duration) {
	defer c.done.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			for i := range c.shards {
				select {
				case <-c.stop:
					return
				default:
				}
				c.cleanShard(&c.shards[i], false)
			}
		}
	}
}

// cleanShard removes expired entries from s, scanning the ring from a
// cursor in batches and releasing the lock (and firing callbacks) between
// batches. full scans from the tail to the head; otherwise it scans at most
// cleanupBudget bytes from where the previous tick stopped.
func (c *Cache) cleanShard(s *shard, full bool) int {
	removed := 0
	var scanned uint64
	first := true
	for {
		var ev *evictions
		if c.onEvict != nil {
			ev = getEvictions()
		}
		s.lock()
		if s.ring == nil || s.ttlCount == 0 {
			s.cursor = s.head
			s.unlock()
			putEvictions(ev)
			return removed
		}
		if (full && first) || s.cursor < s.tail || s.cursor >= s.head {
			s.cursor = s.tail
		}
		first = false
		n, bytes := s.cleanBatch(c, c.now(), lockBatch, ev)
		removed += n
		scanned += bytes
		s.trimTail()
		c.publish(s)
		finished := s.cursor >= s.head
		s.unlock()
		c.fire(ev)
		if finished || (!full && scanned >= cleanupBudget) {
			return removed
		}
	}
}
