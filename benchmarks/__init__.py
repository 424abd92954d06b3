"""The streamcalls benchmark: ``python -m benchmarks`` (or ``make bench``).

Seeded, realistic provider streams (:mod:`benchmarks.streams`) are fed to
streamcalls and to the peers users would otherwise pick -- the official SDK
accumulators, langchain-core's chunk addition, the re-parse approach
(:mod:`benchmarks.contenders`).  Every contender's calls are checked against
the generator's ground truth, then timed interleaved in one process
(:mod:`benchmarks.runner`) and reported as ratios to streamcalls
(:mod:`benchmarks.report`).
"""
