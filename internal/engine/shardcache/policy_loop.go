package shardcache

// Door keys (keys the ghost remembers, and entries too large for the
// window) skip the window; what they meet at the main queue's tail
// depends on whether the traffic looks like a loop, which doorCheck and
// tailReads tell.

// doorCheck decides whether a door key (one the ghost remembers, or one
// too large for the window) that arrives at the entry cap meets the main
// queue's victim. By default it does not: it takes its room from the
// window, so that in effect it displaces the main queue's CLOCK victim
// without a contest, as S3-FIFO admits a key its ghost remembers. That
// is right when such keys are used again soon (on web and
// recommendation traces a third to a half of them are read before they
// first reach the main queue's tail), and churn when they are not: in a
// loop none of them is, and each displaces an entry the loop reaches
// sooner. So doorCheck
// samples door keys admitted at the cap, by their position in the main
// queue, and when one reaches the tail it notes whether it was read;
// while more than doorRatio times as many leave unread as read, door
// keys at the cap contest the victim, and one that loses gets the
// window's chance like a new key (refusing it outright cost more).
type doorCheck struct {
	// read and unread count the samples that reached the tail, halved
	// when they sum to doorHalve; contest is the decision.
	read, unread uint32
	contest      bool
	// at holds the main-queue positions (fifo.head at the push) of up to
	// doorSamples door keys admitted at the cap, in order, from first on:
	// the tail passes them in that order. A sample whose entry left
	// another way (deleted, overwritten) is dropped when the tail goes
	// past its position.
	at       [doorSamples]uint64
	first, n uint8
}

const (
	// doorSamples is how many admissions doorCheck watches at once; a
	// door key admitted while all are taken is not sampled.
	doorSamples = 16
	// doorMin samples decide; their counts are halved at doorHalve, so
	// that the decision follows the traffic.
	doorMin   = 16
	doorHalve = 64
	doorRatio = 4
)

// undecided reports whether fewer than doorMin samples have reached the
// tail: doorCheck has no verdict yet.
func (d *doorCheck) undecided() bool { return d.read+d.unread < doorMin }

// admitted samples a door key admitted at the cap at main-queue position
// pos, if a place is free.
func (d *doorCheck) admitted(pos uint64) {
	if int(d.n) < doorSamples {
		d.at[(int(d.first)+int(d.n))%doorSamples] = pos
		d.n++
	}
}

// passed notes that the live entry at main-queue position pos reached
// the tail, read or not since it was written.
func (d *doorCheck) passed(pos uint64, read bool) {
	for d.n > 0 && d.at[d.first] < pos {
		d.drop()
	}
	if d.n == 0 || d.at[d.first] != pos {
		return
	}
	d.drop()
	if read {
		d.read++
	} else {
		d.unread++
	}
	if !d.undecided() {
		d.contest = d.unread > doorRatio*d.read
	}
	if d.read+d.unread >= doorHalve {
		d.read, d.unread = d.read/2, d.unread/2
	}
}

// useful reports whether door keys admitted at the cap are mostly read
// before they reach the main queue's tail: at least as many of doorMin
// samples or more were read as were not.
func (d *doorCheck) useful() bool {
	return !d.undecided() && d.read >= d.unread
}

func (d *doorCheck) drop() {
	d.first = (d.first + 1) % doorSamples
	d.n--
}

// doorContests reports whether door keys at the entry cap meet the main
// queue's victim: while doorCheck says so.
func (p *policy) doorContests() bool {
	return p.door.contest && !disabled(ablDoorCheck)
}

// doorKeyDown reports whether a door key meets the main queue's victim one
// point down, as the window's unread exits do: with the climber at its
// start or below (towards frequency), while doorCheck finds that door keys
// reach the tail unread, or before it has a verdict if the main queue's
// entries are seldom read (tailReads). Both say the traffic is a loop: its
// two requests came close together (it left the window unread and the
// ghost still remembers it), as every key's do near the turn of a loop
// that runs back, and it displaces an entry the loop reads before it.
// The seldom-read main queue stands in for doorCheck's verdict before the
// first door keys reach the tail, so that a loop's second pass keeps the
// first fill (which the sketch, starting at half full, never counted)
// instead of trading it for the keys it reads next.
func (p *policy) doorKeyDown() bool {
	return !disabled(ablDoorDown) && p.climb.pos <= startPos && (p.doorContests() || p.door.undecided() && p.tail.seldom())
}

// tailReads counts the live entries that reached the main queue's tail (n)
// and how many of them had been read since they were written (or last
// passed it), both halved when n reaches tailHalve, so that it follows the
// traffic.
type tailReads struct {
	n, read uint32
}

const (
	// tailMin entries must have passed before the counts say anything;
	// tailHalve bounds the memory; fewer than one in tailRatio read is
	// seldom.
	tailMin   = 16
	tailHalve = 256
	tailRatio = 8
)

// note counts one live entry at the tail, read or not.
func (t *tailReads) note(read bool) {
	t.n++
	if read {
		t.read++
	}
	if t.n >= tailHalve {
		t.n, t.read = t.n/2, t.read/2
	}
}

// seldom reports whether the main queue's entries are seldom read before
// they reach its tail (or too few have reached it to tell): traffic whose
// keys come back only after the whole cache has turned over, a loop or a
// scan, where keeping what the cache holds is worth as much as admitting
// what comes back and costs no churn.
func (t *tailReads) seldom() bool {
	return (t.n < tailMin || tailRatio*t.read < t.n) && !disabled(ablSeldom)
}
