"""What zeroing the result buffer before the counterexample search costs a warm wrong verdict, side by side.

    python3 bench/search_scrub.py [--runs 30] [--file submissions/sinusoidal-pe/wrong_answer/sin_cos_swapped.py]

One warm ``Judge`` grades a wrong answer again and again; every other verdict is made the old, unsafe way (the
search's run on the grading run's buffer with only its slot headers cleared, patched in for the measurement),
the others as built (the buffer zeroed in the background while the search makes its candidates, the search's run
gated until it is clear).  Alternating verdict by verdict in one process keeps a busy machine's drift out of the
ratio.  It prints the median verdict time of each and their ratio, and the zeroing itself (the buffer's size and
one memset of it).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--file", type=Path,
                        default=REPO / "submissions" / "sinusoidal-pe" / "wrong_answer" / "sin_cos_swapped.py")
    parser.add_argument("--problem", default=str(REPO / "problems" / "sinusoidal-pe"))
    args = parser.parse_args()

    import judge.engine as engine
    from judge import Judge
    from judge.grading.slots import CaseJudging
    from judge.sandbox.boundary import result_buffer
    from judge.sandbox.boundary.contract import BackendError

    built_runner, built_scrub = engine._search_runner, result_buffer.ResultBuffer.scrub_in_background

    def headers_only_runner(backend):  # noqa: ANN001, ANN202 - what the search did before: no zeroing
        def run(searched, request):  # noqa: ANN001, ANN202
            buffer = backend.result_buffer_for(searched.result_size)
            for offset in searched.slot_offsets:
                buffer.map[offset:offset + 4096] = bytes(min(4096, buffer.size - offset))
            report = backend.run(request, searched.inputs.fd)
            if report.error or report.setup_error:
                raise BackendError(report.error or report.setup_error)
            return CaseJudging(searched, buffer.map).finish(report, cpu_limit=request.limits.cpu_seconds)
        return run

    skip = [False]

    def scrub_after_the_search_only(self) -> None:  # noqa: ANN001 - before: one scrub, once the search was over
        if skip[0]:
            skip[0] = False  # the first scrub of a wrong verdict is the one before its search
            return
        built_scrub(self)

    source = args.file.read_text()
    times: dict[str, list[float]] = {"zeroed (built)": [], "headers only (old)": []}
    with Judge() as judge:
        judge.warm_up()
        for _ in range(3):
            judge.grade(source, args.problem)
        for k in range(2 * args.runs):
            old = k % 2 == 1
            engine._search_runner = headers_only_runner if old else built_runner
            result_buffer.ResultBuffer.scrub_in_background = scrub_after_the_search_only if old else built_scrub
            skip[0] = old
            start = time.perf_counter()
            verdict = judge.grade(source, args.problem)
            times["headers only (old)" if old else "zeroed (built)"].append((time.perf_counter() - start) * 1e3)
            assert verdict.counterexample is not None
        engine._search_runner, result_buffer.ResultBuffer.scrub_in_background = built_runner, built_scrub
        buffer = judge._pool.queue[0].result_buffer
        start = time.perf_counter()
        result_buffer._zero(buffer.map)
        memset_ms = (time.perf_counter() - start) * 1e3
    built, old = (statistics.median(times[k]) for k in ("zeroed (built)", "headers only (old)"))
    print(f"{'warm wrong verdict, ms (median)':34} {'value':>8}")
    print(f"{'zeroed before the search (built)':34} {built:8.1f}")
    print(f"{'headers only (old, unsafe)':34} {old:8.1f}")
    print(f"{'ratio built/old':34} {built / old:8.3f}")
    print(f"buffer {buffer.size / 2**20:.0f} MiB, one memset {memset_ms:.1f} ms; runs {args.runs} each; "
          f"load {Path('/proc/loadavg').read_text().split()[0]}")


if __name__ == "__main__":
    main()
