package shardcache

// doorCheck decides whether a door key (one the ghost remembers, or one
// too large for the window) arriving at the entry cap meets the main
// queue's victim. By default it takes its room from the window, in effect
// displacing the CLOCK victim without a contest, as S3-FIFO admits a ghost
// hit: right when such keys are read again soon, churn in a loop, where
// each displaces an entry the loop reaches sooner. So doorCheck samples
// door keys admitted at the cap by their main-queue position and notes, as
// each reaches the tail, whether it was read; while more than doorRatio
// times as many leave unread as read, door keys at the cap contest the
// victim, and one that loses gets the window's chance like a new key.
type doorCheck struct {
	// read and unread count the samples that reached the tail, halved
	// when they sum to doorHalve; contest is the decision.
	read, unread uint32
	contest      bool
	// at holds the main-queue positions (fifo.head at the push) of up to
	// doorSamples sampled keys, oldest at first, in the order the tail
	// passes them; one whose entry left another way is dropped as the
	// tail goes past its position.
	at       [doorSamples]uint64
	first, n uint8
}

const (
	doorSamples = 16 // admissions watched at once
	doorMin     = 16 // samples before a verdict
	doorHalve   = 64
	doorRatio   = 4
)

// undecided reports whether doorCheck has no verdict yet.
func (d *doorCheck) undecided() bool { return d.read+d.unread < doorMin }

// admitted samples a door key admitted at main-queue position pos, if a
// place is free.
func (d *doorCheck) admitted(pos uint64) {
	if int(d.n) < doorSamples {
		d.at[(int(d.first)+int(d.n))%doorSamples] = pos
		d.n++
	}
}

// passed notes that the live entry at main-queue position pos reached the
// tail, read or not.
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

// useful reports whether door keys are mostly read before they reach the
// tail.
func (d *doorCheck) useful() bool {
	return !d.undecided() && d.read >= d.unread
}

func (d *doorCheck) drop() {
	d.first = (d.first + 1) % doorSamples
	d.n--
}

// doorContests reports whether door keys at the entry cap meet the victim.
func (p *policy) doorContests() bool {
	return p.door.contest && !disabled(ablDoorCheck)
}

// doorKeyDown reports whether a door key meets the victim one point down,
// as the window's unread exits do: with the climber at its start or below,
// while the traffic looks like a loop (doorContests, or before doorCheck
// has a verdict, a seldom-read tail). A loop's two close requests of a key
// near its turn are not worth the entry the loop reads before it; the
// seldom-read tail stands in until the first samples reach the tail, so
// that a loop's second pass keeps the first fill.
func (p *policy) doorKeyDown() bool {
	return !disabled(ablDoorDown) && p.climb.pos <= startPos && (p.doorContests() || p.door.undecided() && p.tail.seldom())
}

// tailReads counts the live entries that reached the main queue's tail (n)
// and how many of them had been read since they were written or last
// passed it, both halved when n reaches tailHalve.
type tailReads struct {
	n, read uint32
}

const (
	tailMin   = 16 // entries passed before the counts say anything
	tailHalve = 256
	tailRatio = 8 // fewer than one in tailRatio read is seldom
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
// they reach its tail (or too few have passed to tell): keys come back only
// after the cache has turned over, a loop or a scan, where keeping what the
// cache holds is worth as much as admitting and costs no churn.
func (t *tailReads) seldom() bool {
	return (t.n < tailMin || tailRatio*t.read < t.n) && !disabled(ablSeldom)
}
