package shardcache

// Policy selects how a full shard chooses what to evict, and whether a new
// key gets in. The package documentation compares them on published traces.
type Policy uint8

// Eviction policies.
const (
	// WindowTinyLFU (the default) keeps a small FIFO window (a tenth of
	// each shard's ring and entries) in front of a main queue under CLOCK
	// with a 2-bit use count, as S3-FIFO does, and adds TinyLFU's
	// admission: an entry leaving the window unread is kept only if a
	// count-min sketch of recent use estimates it more used than the main
	// queue's victim, shifted by a bias that a climber adapts (towards
	// recency), or with the window's entry target shrunk to as little as
	// a hundredth of the shard (towards frequency) by the same climber,
	// which weighs refused keys that came back against kept victims that
	// were read again. A window
	// entry that was read moves to the main queue; one that loses goes to
	// a ghost of hashes, and a key the ghost remembers skips the window
	// next time. New keys are always stored, so a key read twice in quick
	// succession hits the second time. Costs: 8 bytes per entry of sketch
	// and 2 of ghost, and the copy of each entry promoted from the window
	// to the main queue. Lookups cost the same as with every other policy
	// (one byte store of the use count on the slot's line).
	WindowTinyLFU Policy = iota
	// TinyLFU is SecondChance plus admission at the door: each Set counts
	// its key in the sketch, and a new key that would evict an unexpired
	// entry CLOCK did not save is stored only if it is estimated more used
	// than that victim (otherwise Set stores nothing, OnEvict sees
	// ReasonRejected and the victim moves to the head). With no window, a
	// key must be asked for twice before it can displace a used one, so a
	// key read again soon after its first read misses (the default before
	// WindowTinyLFU).
	TinyLFU
	// SecondChance is CLOCK over the ring: an entry read since it was
	// written (or last moved) is copied to the head once instead of being
	// evicted; an unread one is evicted. It keeps hot keys through a
	// stream of one-time keys, but admits every new key.
	SecondChance
	// FIFO evicts the oldest entry regardless of use.
	FIFO
	// S3FIFO is WindowTinyLFU without the sketch and the climber (Yang et
	// al., SOSP 2023): a window entry leaving unread is always evicted
	// (into the ghost). It saves the sketch's 8 bytes per entry.
	S3FIFO
)

// String returns the policy's name.
func (p Policy) String() string {
	switch p {
	case WindowTinyLFU:
		return "window-tinylfu"
	case TinyLFU:
		return "tinylfu"
	case SecondChance:
		return "second-chance"
	case FIFO:
		return "fifo"
	case S3FIFO:
		return "s3fifo"
	}
	return "unknown"
}
