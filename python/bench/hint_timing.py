"""The Python side of the package's overhead benchmark (docs/BENCHMARKS.md, "Python
package"): Engine.hint on the positions the Rust example `hint_timing` wrote, timed.

    python python/bench/hint_timing.py FILE [SPEC]
"""

import sys
import time

import stargammon


def cpu_seconds():
    """The process's time on a CPU, every thread's, read as the Rust side reads it: user
    plus system time from /proc/self/stat in ticks of 1/100 s (Linux)."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / 100
    except (OSError, IndexError, ValueError):
        return 0.0


def main():
    path = sys.argv[1]
    spec = sys.argv[2] if len(sys.argv) > 2 else "net,depth=3"
    with open(path) as f:
        positions = [stargammon.Position.parse(line) for line in f if line.strip()]
    engine = stargammon.Engine(spec)
    start = time.perf_counter()
    cpu = cpu_seconds()
    plays = 0
    for p in positions:
        plays += len(engine.hint(p))
    s = time.perf_counter() - start
    cpu = cpu_seconds() - cpu
    print(
        f"python Engine.hint: {len(positions)} positions, {plays} plays, {s:.3f} s wall, "
        f"{cpu:.3f} s on the CPU, {1000 * cpu / len(positions):.3f} ms per hint"
    )


if __name__ == "__main__":
    main()
