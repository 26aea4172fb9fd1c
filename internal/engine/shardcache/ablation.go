package shardcache

// ablation names mechanisms of the default policy that the ablation study
// turns off one at a time (scripts/shardcache-ablation.sh, which builds
// the binary with the "ablation" tag). It is zero in every other build, so
// each check is one load of a word no writer changes, and only on Set's
// path, never on Get's.
type ablation uint32

// ablated is the set of mechanisms turned off; only ablation_env.go (build
// tag "ablation") and tests set it.
var ablated ablation

// The mechanisms, as named by CACHEBENCH_ABLATE.
const (
	ablSketch      ablation = 1 << iota // no contests: the window's unread exits are refused, door keys admitted (S3-FIFO)
	ablClimber                          // the climber never moves from its start
	ablClimbFreq                        // the climber never goes below its start (the window never shrinks below 7%)
	ablClimbRec                         // the climber never goes above its start (no admission bias)
	ablReadContest                      // entries read in the window always move on without a contest
	ablTrial                            // no discount for victims on trial
	ablDoorCheck                        // door keys at the cap never contest the victim (doorCheck)
	ablDoorDown                         // door keys never meet the victim one point down
	ablSeldom                           // tailReads never says the main queue is seldom read
	ablGhost                            // the ghost never sends a key to the main queue
	ablYoung                            // fresh returns of keys refused without contest are not evidence
	ablKeepRead                         // room made without contest evicts read entries the budget cannot move
	ablFill                             // while the cache fills, new keys still enter the window
	ablDoorContest                      // door keys never meet the victim (admitted as S3-FIFO admits ghost hits)
	ablWarm                             // the climber's first periods are full length
	ablUnreadPoint                      // unread window exits contest without the point down
)

// disabled reports whether mechanism m is turned off.
func disabled(m ablation) bool { return ablated&m != 0 }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
