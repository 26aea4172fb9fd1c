package shardcache

// doorCheck decides whether a door key arriving at the entry cap meets the
// main queue's victim. By default it takes its room from the window, as
// S3-FIFO admits a ghost hit: right when such keys are read again soon,
// churn in a loop. So it samples door keys admitted at the cap and notes
// whether each was read by the time it reaches the tail; while more than
// doorRatio times as many are unread as read, they contest the victim.
type doorCheck struct {
	read, unread uint32 // samples that reached the tail, halved at doorHalve
	contest      bool
	// at holds the main-queue positions of up to doorSamples sampled
	// keys from first on, in the order the tail passes them.
	at       [doorSamples]uint64
	first, n uint8
}

const (
	doorSamples = 16 // admissions watched at once
	doorMin     = 16 // samples before a verdict
	doorHalve   = 64
	doorRatio   = 4
	tailMin     = 16 // entries passed before tailReads says anything
	tailHalve   = 256
	tailRatio   = 8 // fewer than one in tailRatio read is seldom
)

// undecided reports whether doorCheck has no verdict yet.
func (d *doorCheck) undecided() bool { return d.read+d.unread < doorMin }

// admitted samples a door key admitted at main-queue position pos.
func (d *doorCheck) admitted(pos uint64) {
	if int(d.n) < doorSamples {
		d.at[(int(d.first)+int(d.n))%doorSamples] = pos
		d.n++
	}
}

// passed notes the live entry at main-queue position pos at the tail.
func (d *doorCheck) passed(pos uint64, read bool) {
	sampled := false // positions are ascending: pos, if sampled, is the last one dropped
	for d.n > 0 && d.at[d.first] <= pos {
		sampled = d.at[d.first] == pos
		d.first, d.n = (d.first+1)%doorSamples, d.n-1
	}
	if !sampled {
		return
	}
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

// useful reports whether door keys are mostly read before the tail.
func (d *doorCheck) useful() bool {
	return !d.undecided() && d.read >= d.unread
}

// doorContests reports whether door keys at the entry cap meet the victim.
func (p *policy) doorContests() bool {
	return p.door.contest && !disabled(ablDoorCheck)
}

// doorKeyDown reports whether a door key meets the victim one point down,
// as unread window exits do: with the climber at its start or below, in
// traffic that looks like a loop (doorContests, or a seldom-read tail until
// doorCheck decides, so that a loop's second pass keeps the first fill),
// where two close requests of a key are not worth the entry read before it.
func (p *policy) doorKeyDown() bool {
	return !disabled(ablDoorDown) && p.climb.pos <= startPos && (p.doorContests() || p.door.undecided() && p.tail.seldom())
}

// tailReads counts the live entries that reached the main queue's tail (n)
// and those read since they were written or last passed it (read).
type tailReads struct{ n, read uint32 }

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
// its tail (or too few passed to tell), as in a loop or a scan.
func (t *tailReads) seldom() bool {
	return (t.n < tailMin || tailRatio*t.read < t.n) && !disabled(ablSeldom)
}
