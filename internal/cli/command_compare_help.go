package cli

// compareLong is the help text of `cachebench compare`.
const compareLong = `compare reads two results (cachebench JSON or the gobench text format, sniffed)
and compares every measurement they share (same adapter, workload, phase, procs and
keys), metric by metric, in a benchstat-like table.

Noisy metrics (ns/op, ops/s, latency percentiles, hit ratios) are compared with a
Mann-Whitney U test at --alpha; a difference counts only when it is significant AND
at least the minimum effect (--threshold, or --threshold-time / --threshold-throughput).
"~" marks no significant difference. The effect is judged on the cost ratio, so a
25% slowdown reads as +25% ns/op and -20% ops/s and both cross a 25% threshold alike.
allocs/op and B/op are compared exactly: any change of the mean beyond float
rounding counts, unless it is within --allocs-tolerance / --bytes-tolerance plus
the spread of the values within one run (0 for a deterministic count; a count that
varies between repetitions of one run, such as sync.Map's allocations, cannot be
held more exactly than that). Lower is better
for times, allocations and bytes, higher for ops/s and hit ratios; a significant
improvement is reported as such and is not a failure. Problems that NEW flags and
OLD did not (wrong values, errors, lost entries) and adapter errors new in NEW are
regressions too.

--normalize ADAPTER divides, in each file, every noisy figure of every adapter by
ADAPTER's figure from the same repetition of the same workload, phase and procs
(the runner interleaves adapters, so those ran side by side): a slower or busier
machine slows both and leaves the ratio alone. allocs/op and B/op are never
normalised. Use it when OLD and NEW come from different machines or times.

Defaults: with none of --threshold, --normalize and --spread-factor given, times
are normalised to fastcache when both runs hold it, and a noisy metric's minimum
effect is raised to the wider spread (2 x interquartile range / median) of either
run's own repetitions, and allocs/op and B/op may move by 5%, so that two runs of the
same code do not read as a regression. The output says which rule was used.
--normalize none compares absolute times.

When OLD and NEW ran on different machines (CPU model, logical cores, OS or
architecture) a warning above the tables says so and how to read them: allocs/op
and B/op compare across machines, absolute times compare the machines as much as
the code, and normalised times cancel a machine's speed but not its caches.

Two gc-pause results are compared per adapter: heap objects and heap bytes per
entry (after the forced collection, less the heap before the adapter was built)
exactly, the forced collection's wall time and GC CPU time with the same test and
threshold as ns/op; entries lost or wrong in NEW only and failed children are
regressions.

Exit status: 0 no regression, 1 regression (the table is printed first), 2 bad
input (missing or unreadable file, nothing in common, fewer than --min-samples
repetitions, a reference adapter missing) or results that cannot pass for a
comparison of complete runs, with the reason: either side interrupted, an adapter
of OLD that NEW neither measured nor recorded as failed, or nothing in common but
the harness floor (two runs of disjoint adapter sets). A hit-ratio result is not
compared (exit 2 saying so).`
