"""MOA's learners through CapyMOA, fed the same materialised samples as every other model.

``pip install ".[moa]"`` brings CapyMOA, which runs MOA (Java) in the same process through
JPype; it needs Java 8 or later on the machine. :func:`available` says whether both are there
and, if not, why (the runner then skips MOA's rows and prints that reason, never failing).

The schema is built from the whole materialised stream before the run (every feature the
stream ever shows, in order of first appearance, all numeric; for a classifier the labels in
order of first appearance), so MOA reads the same values in the same order as river's models
and ours. A feature missing from a sample's dict is NaN, which MOA reads as a missing value.
Each sample's Java instance is built outside the clock (as the batch models' frames are); the
clock runs inside ``predict_proba``/``predict`` and ``train`` only. A sample MOA cannot predict
yet (no votes) is learned but not scored, as river's ``progressive_val_score`` does.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=1)
def available() -> str | None:
    """None when MOA can run here, else the reason it cannot."""
    if shutil.which("java") is None:
        return "Java not found (MOA needs Java 8+ on the PATH)"
    try:
        import capymoa  # noqa: F401
    except ImportError:
        return 'capymoa not installed (pip install ".[moa]")'
    return None


def version() -> str:
    import capymoa

    try:
        java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.split("\n")[0]
    except OSError:
        java = "java ?"
    return f"capymoa {capymoa.__version__}; {java.strip()}"


class MOAModel:
    """One of MOA's learners on one stream (see the module's docstring)."""

    def __init__(self, name: str, task: str, seed: int, trees: int):
        self.name, self.task, self.seed, self.trees = name, task, seed, trees
        self.learner = None

    def _build(self, schema):
        from capymoa import classifier, regressor

        if self.task == "clf":
            cls = getattr(classifier, self.name)
        else:
            cls = getattr(regressor, self.name)
        if self.name in ("HoeffdingTree",):
            return cls(schema=schema, random_seed=self.seed)
        if self.name in ("FIMTDD",):
            return cls(schema=schema)
        return cls(schema=schema, ensemble_size=self.trees, random_seed=self.seed)

    def run(self, data: list, metric, every: int):
        """Progressive validation: yields ``(samples seen, seconds in MOA's calls)`` at each
        multiple of `every` and at the end, updating `metric` with each prediction."""
        from capymoa.core import LabeledInstance, RegressionInstance
        from capymoa.stream import Schema

        names = list(dict.fromkeys(k for x, _ in data for k in x))
        column = {k: j for j, k in enumerate(names)}
        labels = list(dict.fromkeys(y for _, y in data)) if self.task == "clf" else None
        target = "__target__"
        categories = {target: [str(v) for v in labels]} if labels is not None else None
        schema = Schema.from_custom(features=[*names, target], target=target,
                                    categories=categories, name="stream")
        self.learner = self._build(schema)
        index = {v: i for i, v in enumerate(labels)} if labels is not None else None
        n = len(data)
        clock = time.perf_counter
        spent = 0.0
        row = np.empty(len(names))
        for i, (x, y) in enumerate(data, 1):
            row.fill(np.nan)
            for k, v in x.items():
                row[column[k]] = v
            if index is not None:
                inst = LabeledInstance.from_array(schema, row.copy(), index[y])
                t0 = clock()
                proba = self.learner.predict_proba(inst)
                self.learner.train(inst)
                spent += clock() - t0
                if proba is not None and len(proba):
                    metric.update(y, labels[int(np.argmax(proba))])
            else:
                inst = RegressionInstance.from_array(schema, row.copy(), float(y))
                t0 = clock()
                pred = self.learner.predict(inst)
                self.learner.train(inst)
                spent += clock() - t0
                if pred is not None and not np.isnan(pred):
                    metric.update(y, float(pred))
            if i % every == 0 or i == n:
                yield i, spent
