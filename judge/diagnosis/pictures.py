"""Pictures of failing public cases: expected / yours / difference heatmaps and a column-pair plot.

PNG files rendered with matplotlib's Agg backend, imported lazily: the judge works without matplotlib
(install the ``pictures`` extra), it just draws nothing.  Only public cases whose output the judge kept
(small enough, the expected shape) are drawn; hidden cases never are.  Axes are labelled with the names the
bundle gives the function's output axes (problem.yaml ``axes``).  The verdict carries references
(:class:`judge.feedback.Picture`): bare file names inside the directory the caller chose.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from judge.feedback import Picture
from judge.grading.prepare import PreparedProblem
from judge.grading.slots import Observed
from judge.grading.terms import Terms
from judge.verdict import Status, Verdict

log = logging.getLogger(__name__)
MAX_CASES = 3          # failing public cases drawn per verdict
PAIRS_SHOWN = 3        # column pairs in the pair plot
DPI = 80


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _plane(a: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    """The last two axes at leading index 0 (a 1-D output becomes one row)."""
    if a.ndim == 1:
        return a[None, :], ()
    lead = (0,) * (a.ndim - 2)
    return a[lead], lead


def _axis_title(terms: Terms, axis: int) -> str:
    k = axis % len(terms.shape)
    if k < terms.lead:
        return terms.leading_name
    spec = terms.axes[k - terms.lead]
    return f"{spec.name} {spec.symbol}".strip()


def _heatmap(plt: Any, data: np.ndarray, title: str, xlabel: str, ylabel: str, path: Path, vmin: float, vmax: float,
             cmap: str) -> None:
    height = max(2.5, min(6.0, 1.5 + data.shape[0] / 16))
    width = max(3.5, min(8.0, 2.5 + data.shape[1] / 8))
    fig, ax = plt.subplots(figsize=(width, height), dpi=DPI)
    try:
        image = ax.imshow(data, aspect="auto", interpolation="nearest", cmap=cmap, vmin=vmin, vmax=vmax)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        fig.colorbar(image, ax=ax)
        fig.tight_layout()
        fig.savefig(path, format="png")
    finally:
        plt.close(fig)


def _pair_plot(plt: Any, expected: np.ndarray, got: np.ndarray, terms: Terms, case: str, path: Path) -> bool:
    axis = terms.paired_axis()
    if axis is None or expected.ndim < 2 or axis != expected.ndim - 1 or expected.shape[-2] < 2:
        return False
    spec = terms.axes[axis - terms.lead]
    pairs = expected.shape[-1] // 2
    if pairs < 1:
        return False
    chosen = sorted({0, pairs // 2, pairs - 1})[:PAIRS_SHOWN]
    rows = np.arange(expected.shape[-2])
    assert spec.pairs is not None  # a paired axis names its pairs
    fig, axes = plt.subplots(len(chosen), 1, figsize=(6.5, 1.9 * len(chosen) + 0.6), dpi=DPI, squeeze=False)
    try:
        for ax, i in zip(axes[:, 0], chosen):
            for member, colour in ((0, "tab:blue"), (1, "tab:orange")):
                j = 2 * i + member
                ax.plot(
                    rows,
                    expected[:, j],
                    color=colour,
                    lw=1.5,
                    label=f"expected {spec.pairs[member]} ({spec.symbol}={j})",
                )
                ax.plot(rows, got[:, j], color=colour, lw=1.2, ls="--", marker=".", ms=3,
                        label=f"yours ({spec.symbol}={j})")
            ax.set_title(f"{spec.pair_symbol}={i}", fontsize=9)
            ax.set_ylabel("value")
            ax.legend(fontsize=7, loc="upper right", ncol=2)
        axes[-1, 0].set_xlabel(_axis_title(terms, -2))
        fig.suptitle(f"case {case}: column pairs, expected (solid) vs yours (dashed)", fontsize=10)
        fig.tight_layout()
        fig.savefig(path, format="png")
    finally:
        plt.close(fig)
    return True


def case_pictures(plt: Any, case_id: str, expected: np.ndarray, got: np.ndarray, terms: Terms, out: Path,
                  pair_plot: bool) -> list[Picture]:
    """Heatmaps (and optionally the pair plot) of one case, written into ``out``."""
    e, lead = _plane(expected)
    g, _ = _plane(got)
    where = f", {terms.leading_name} index {lead}".replace(",)", ")") if lead else ""
    xlabel = _axis_title(terms, -1)
    ylabel = _axis_title(terms, -2) if expected.ndim >= 2 else ""
    finite = np.isfinite(g)
    lo = float(min(e.min(), g[finite].min() if finite.any() else e.min()))
    hi = float(max(e.max(), g[finite].max() if finite.any() else e.max()))
    diff = np.where(finite, g - e, np.nan)
    span = float(np.nanmax(np.abs(diff))) if np.isfinite(diff).any() else 1.0
    span = span or 1.0
    pictures = []
    for kind, data, title, vmin, vmax, cmap in (
            ("expected", e, f"case {case_id}: expected{where}", lo, hi, "viridis"),
            ("yours", g, f"case {case_id}: yours{where}", lo, hi, "viridis"),
            ("difference", diff, f"case {case_id}: yours - expected{where}", -span, span, "RdBu_r")):
        name = f"{case_id}-{kind}.png"
        _heatmap(plt, data, title, xlabel, ylabel, out / name, vmin, vmax, cmap)
        pictures.append(Picture(case=case_id, kind=kind, title=title, file=name))
    if pair_plot and _pair_plot(plt, e, g, terms, case_id, out / f"{case_id}-column_pairs.png"):
        pictures.append(Picture(case=case_id, kind="column_pairs",
                                title=f"case {case_id}: column pairs, expected vs yours",
                                file=f"{case_id}-column_pairs.png"))
    return pictures


def render_pictures(verdict: Verdict, prepared: PreparedProblem, observed: dict[int, Observed],
                    out_dir: str | Path) -> list[Picture]:
    """Draw the failing public cases into ``out_dir``; [] without matplotlib or anything to draw."""
    candidates = []
    for i, case in enumerate(verdict.cases):
        obs = observed.get(i)
        expected = prepared.cases[i].expected
        if case.visibility != "public" or case.status is not Status.WRONG_ANSWER or obs is None \
                or obs.got is None or obs.got.shape != expected.shape or expected.ndim < 1 or expected.size < 2 \
                or prepared.cases[i].parts is not None:  # a tuple's items laid out in a row are no picture
            continue
        candidates.append(i)
    if not candidates:
        return []
    plt = _pyplot()
    if plt is None:
        log.info("matplotlib is not installed: no pictures (pip install 'numpy-judge[pictures]')")
        return []
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chosen = sorted(candidates, key=lambda i: -prepared.cases[i].expected.size)[:MAX_CASES]
    pair_case = chosen[0]
    pictures: list[Picture] = []
    for i in sorted(chosen):
        prepared_case = prepared.cases[i]
        got = observed[i].got
        assert got is not None  # a candidate has an output (above)
        function = prepared.bundle.spec.function(prepared_case.spec.function)
        terms = Terms(function, prepared_case.expected.shape)
        pictures += case_pictures(plt, prepared_case.spec.id, prepared_case.expected, got, terms, out,
                                  i == pair_case)
    return pictures


def render_pictures_safely(verdict: Verdict, prepared: PreparedProblem, observed: dict[int, Observed],
                           out_dir: str | Path) -> list[Picture]:
    """:func:`render_pictures`, where a drawing failure costs the pictures, never the verdict."""
    try:
        return render_pictures(verdict, prepared, observed, out_dir)
    except Exception:  # noqa: BLE001
        log.exception("pictures failed for %s", prepared.bundle.id)
        return []
