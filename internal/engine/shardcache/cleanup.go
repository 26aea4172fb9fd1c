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

// cleanShard removes expired entries from s, scanning each queue's ring
// from a cursor in batches and releasing the lock (and firing callbacks)
// between batches. full scans every queue from its tail to its head;
// otherwise it scans at most cleanupBudget bytes in all, from where the
// previous tick stopped.
func (c *Cache) cleanShard(s *shard, full bool) int {
	removed := 0
	var scanned uint64
	for k := range s.q {
		first := true
		for {
			var ev *evictions
			if c.onEvict != nil {
				ev = getEvictions()
			}
			s.lock()
			q := &s.q[k]
			if s.ring == nil || s.ttlCount == 0 {
				q.cursor = q.head
				s.unlock()
				putEvictions(ev)
				return removed
			}
			if (full && first) || q.cursor < q.tail || q.cursor >= q.head {
				q.cursor = q.tail
			}
			first = false
			n, bytes := s.cleanBatch(c, k, c.now(), lockBatch, ev)
			removed += n
			scanned += bytes
			s.trimTail()
			c.publish(s)
			finished := q.cursor >= q.head
			s.unlock()
			c.fire(ev)
			if !full && scanned >= cleanupBudget {
				return removed
			}
			if finished {
				break
			}
		}
	}
	return removed
}
