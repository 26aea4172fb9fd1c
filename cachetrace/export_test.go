package cachetrace

import "time"

// NewWithClock is New with the clock the records' times come from, for
// the external tests.
func NewWithClock(opts Options, now func() time.Time) (*Recorder, error) {
	return newRecorder(opts, now)
}
