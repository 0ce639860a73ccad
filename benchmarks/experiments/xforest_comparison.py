"""XForest against river's and our streaming models and a refit batch forest: xu's figures 2, 4, 6.

What it measures
----------------
Xu et al. (Extremely Simple Streaming Forest), section 3: accuracy against the number of
samples (figure 2), pickled size and training time against samples (figures 4 and 8), and
XForest-Zero, a forest whose leaves are refit on a new task without adding a node (section
2.2, figure 6). Here, on real data, all models with 10 trees (where it applies) and seed 42,
fed batches of 100 rows in stream order:

* models: ``XForestClassifier`` (batch-native: ``learn_many`` per batch); river's
  ``tree.HoeffdingTreeClassifier()`` and ``forest.ARFClassifier(n_models=10, seed=42)``
  (``learn_one`` per row); every other classifier of ``river_forests.__all__`` (one entry per
  value of a parameter that chooses the paper's variant, an estimator's ``_variants``: Mondrian,
  PurelyRandom with both splits, StreamPartition, BSP), defaults and 10 trees, fed
  ``learn_many`` per batch, which for them is exactly a ``learn_one`` loop (they declare
  ``_learn_many_equals_learn_one``; checked below on imagesegments); and scikit-learn's
  ``RandomForestClassifier(n_estimators=10, random_state=42)`` refit from scratch, at each
  checkpoint, on every row seen so far (xu's batch references).
* elec (45,312 rows) and covtype (its first 200,000 rows), read from ``elec.csv`` and
  ``covtype.csv.gz`` in the shared data folder as the former script read them (not through the
  stream registry: see ``_common.samples``): there is no separate test set, so at each checkpoint n
  (log-spaced) every model, having learned the first n rows, predicts the next W = 2,000 rows
  (not learned then; they are learned later, in order): *next-window accuracy*, on which the
  refit forest is scored too. Also the *prequential* accuracy of the streaming models up to n:
  each batch is predicted (every row by the model as it stood before the batch) and then
  learned.
* imagesegments (river's bundled ``datasets.ImageSegments()``: 2,310 image regions, 18 numeric
  features, 7 classes named by strings): shuffled and split with a fixed seed (70%, 1,617 rows,
  streamed in batches of 100; 30%, 693 rows, held out); test accuracy after every batch (xu's
  figure 2 style).
* memory: ``len(pickle.dumps(model))`` at every checkpoint (the refit forest's too), and the
  cumulative training time (the model's learn calls only; for the refit forest, the sum of its
  fits up to that checkpoint, as xu count it, and the time of the fit at that checkpoint).
* XForest-Zero on imagesegments: the partition is learned on task A (the classes brickface,
  sky, foliage and cement: all their training rows, batches of 100); ``refit_many`` then refits
  the leaves on m rows of task B (window, path and grass; m = 50, 100, 200 and all of B's
  training rows) and the forest is scored on B's test rows. Compared with an XForest and a
  scikit-learn random forest trained on the same m rows only, and with refitting a forest whose
  partition was learned on B's own training rows (an upper reference). The same with
  ``MondrianForestClassifier`` (whose partition ignores the labels). 10 repetitions (the m rows
  drawn at random from B's training rows, model seed 42+r).

Usage
-----
From the repository root::

    python -m benchmarks experiment xforest_comparison            # full run: ~6 minutes of work, most of it river's ARF on covtype
    python -m benchmarks experiment xforest_comparison --quick    # elec 10,000 rows, covtype 20,000, 3 repetitions: about a minute
    python -m benchmarks experiment xforest_comparison --jobs 2   # the measurements in 2 processes

One measurement per (dataset, model) pair, per XForest-Zero repetition, and one for the
``learn_many`` check; the runner stores each and runs only what its store lacks. Writes
``results/experiments/xforest_comparison.md`` and ``.png`` (``_quick`` names for ``--quick``):
the tables per dataset, the XForest-Zero table, and one figure (accuracy on the next window
or test set, prequential accuracy, pickled size and training time against samples, one column
per dataset; the XForest-Zero panels below).

What to look at: the report's tables give the numbers of the run named at its top; its
"Findings (computed)" section ranks XForest among the streaming models and against the refit
forest per dataset (accuracy, pickled size, training time) and summarises XForest-Zero against
the forests trained on the m refit rows alone.
"""

from __future__ import annotations

import math
import pickle
import time

import numpy as np

from river_forests._progressive import _labels

from benchmarks.experiments import _common

SEED = 42
TREES = 10
BATCH = 100
LADDER = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000]
WINDOW = 2_000
ELEC_ROWS = 45_312
COVTYPE_ROWS = 200_000
QUICK_ROWS = {"elec": 10_000, "covtype": 20_000}
TEST_SHARE = 0.3  # imagesegments' held-out share
TASK_A = ("brickface", "sky", "foliage", "cement")  # XForest-Zero: the partition's task
TASK_B = ("window", "path", "grass")  # XForest-Zero: the refit's task
ZERO_SIZES = [50, 100, 200, None]  # None: all of task B's training rows
ZERO_REPS = 10
QUICK_ZERO_REPS = 3
STREAMS = ["elec", "covtype", "imagesegments"]

XF = "XForest"
RF = "RF (sklearn, refit)"
HT = "HoeffdingTree (river)"
ARF = "ARF (river)"
ARMS = ["partition on A, refit on B's m rows (Zero)",
        "trained on B's m rows only",
        "partition on all of B's training rows, refit on B's m rows (upper reference)"]


# ---------------------------------------------------------------------------- the data

def arrays(data: list) -> tuple[np.ndarray, np.ndarray, list]:
    """(x dict, label) pairs as a float matrix, the labels (ints or strings) and the feature names."""
    names = list(data[0][0])
    X = np.asarray([[x[k] for k in names] for x, _ in data], dtype=np.float64)
    y = np.asarray([label for _, label in data])
    return X, y, names


def load_real(name: str, n: int) -> tuple[np.ndarray, np.ndarray, list]:
    """The first n rows of elec or covtype as arrays."""
    return arrays(_common.samples(name, n))


def load_imagesegments_split():
    """River's ImageSegments (string labels), shuffled and split with the module's seed:
    1,617 training rows, 693 held out."""
    from river import datasets
    from sklearn.model_selection import train_test_split

    X, y, names = arrays(list(datasets.ImageSegments()))
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=TEST_SHARE, random_state=SEED, shuffle=True)
    return X_tr, y_tr, X_te, y_te, names


def checkpoints_for(n_rows: int) -> list[int]:
    last = (n_rows - WINDOW) // BATCH * BATCH
    cps = [c for c in LADDER if c < last]
    return cps + [last]


# ---------------------------------------------------------------------------- the models

def streaming_models() -> dict:
    """label -> (a function making the model, "many" or "one"), in the report's order."""
    from river import forest, tree

    from river_forests import XForestClassifier

    out = {
        XF: (lambda: XForestClassifier(n_estimators=TREES, seed=SEED, batch_size=BATCH), "many"),
        HT: (lambda: tree.HoeffdingTreeClassifier(), "one"),
        ARF: (lambda: forest.ARFClassifier(n_models=TREES, seed=SEED), "one"),
    }
    for label, (cls, params) in _common.our_variants().items():
        if cls is XForestClassifier:
            continue
        if not getattr(cls, "_learn_many_equals_learn_one", False):
            raise RuntimeError(f"{cls.__name__} does not declare learn_many == learn_one")
        out[label] = ((lambda cls=cls, params=params: cls(n_estimators=TREES, seed=SEED, **params)),
                      "many")
    return out


class Streamer:
    """A streaming model fed batches: ``learn_many`` / ``predict_proba_many`` on DataFrames
    (``kind="many"``) or ``learn_one`` / ``predict_proba_one`` on each row's dict (``"one"``).
    Only the learn calls count in ``learn_s``; predictions in ``predict_s``."""

    def __init__(self, name: str, model, kind: str):
        self.name, self.model, self.kind = name, model, kind
        self.learn_s = 0.0
        self.predict_s = 0.0

    def learn(self, X, dicts: list, y: np.ndarray) -> None:
        import pandas as pd

        clock = time.perf_counter
        if self.kind == "many":
            ys = pd.Series(y, index=X.index)
            t0 = clock()
            self.model.learn_many(X, ys)
            self.learn_s += clock() - t0
        else:
            ys = y.tolist()
            t0 = clock()
            for x, t in zip(dicts, ys):
                self.model.learn_one(x, t)
            self.learn_s += clock() - t0

    def predict(self, X, dicts: list) -> list:
        clock = time.perf_counter
        t0 = clock()
        if self.kind == "many":
            out = _labels(self.model.predict_proba_many(X))
        else:
            out = []
            for x in dicts:
                p = self.model.predict_proba_one(x)
                out.append(max(p, key=p.get) if p else None)
        self.predict_s += clock() - t0
        return out


def sklearn_rf():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=TREES, random_state=SEED, n_jobs=1)


def accuracy(pred: list, y: np.ndarray) -> float:
    return float(np.mean([p is not None and p == t for p, t in zip(pred, y.tolist())]))


def frame(X: np.ndarray, names: list, start: int):
    import pandas as pd

    return pd.DataFrame(X, columns=names, index=pd.RangeIndex(start, start + len(X)))


def dicts_of(X: np.ndarray, names: list) -> list:
    return [dict(zip(names, row)) for row in X.tolist()]


# ---------------------------------------------------------------------------- one (dataset, model)

def _dataset(dataset: str, rows: int | None) -> dict:
    """The arrays of a dataset, its checkpoints, its fixed test set if any, and its description."""
    if dataset == "imagesegments":
        X_tr, y_tr, X_te, y_te, names = load_imagesegments_split()
        cps = list(range(BATCH, len(X_tr), BATCH)) + [len(X_tr)]
        return dict(X=X_tr, y=y_tr, names=names, checkpoints=cps, X_eval=X_te, y_eval=y_te,
                    meta={"n_rows": int(len(X_tr) + len(X_te)), "n_test": int(len(X_te)),
                          "n_classes": int(len(np.unique(y_tr)))})
    X, y, names = load_real(dataset, rows)
    return dict(X=X, y=y, names=names, checkpoints=checkpoints_for(len(X)), X_eval=None, y_eval=None,
                meta={"n_rows": int(len(X)), "n_classes": int(len(np.unique(y)))})


def run_stream(dataset: str, rows: int | None, label: str) -> dict:
    """One model on the stream in batches of 100. At each checkpoint n: accuracy on the next
    WINDOW rows (or on the fixed test set of imagesegments), prequential accuracy so far, pickled size,
    cumulative learn time. For the refit random forest: a fit from scratch at each checkpoint."""
    t_model = time.perf_counter()
    d = _dataset(dataset, rows)
    X, y, names, checkpoints = d["X"], d["y"], d["names"], d["checkpoints"]
    n_total = checkpoints[-1]
    rec = {"dataset": dataset, "model": label, "n_features": len(names), "checkpoints": checkpoints,
           "window": None if d["X_eval"] is not None else WINDOW, **d["meta"]}
    eval_cache = {}
    for n in checkpoints:
        if d["X_eval"] is not None:
            Xe, ye, start = d["X_eval"], d["y_eval"], 0
        else:
            Xe, ye, start = X[n:n + WINDOW], y[n:n + WINDOW], n
        eval_cache[n] = (frame(Xe, names, start), ye)

    if label == RF:
        # the batch reference: refit from scratch on everything seen, at each checkpoint
        r = {"kind": "refit", "eval": [], "prequential": None, "pickled": [], "learn_s": [],
             "fit_s": [], "mode": "fit on rows 1..n at each checkpoint"}
        total = 0.0
        for n in checkpoints:
            rf = sklearn_rf()
            t0 = time.perf_counter()
            rf.fit(X[:n], y[:n])
            fit = time.perf_counter() - t0
            total += fit
            Xe_df, ye = eval_cache[n]
            r["eval"].append(float(np.mean(rf.predict(Xe_df.to_numpy()) == ye)))
            r["pickled"].append(len(pickle.dumps(rf)))
            r["fit_s"].append(fit)
            r["learn_s"].append(total)
        r["wall_s"] = time.perf_counter() - t_model
        return {**rec, **r}

    make, kind = streaming_models()[label]
    s = Streamer(label, make(), kind)
    r = {"kind": s.kind, "eval": [], "prequential": [], "pickled": [], "learn_s": [],
         "predict_s_total": 0.0,
         "mode": "learn_many, batches of 100" if s.kind == "many" else "learn_one, each row"}
    correct = scored = 0
    cp = iter(checkpoints)
    nxt = next(cp)
    for start in range(0, n_total, BATCH):
        stop = min(start + BATCH, n_total)
        Xb = frame(X[start:stop], names, start)
        db = dicts_of(X[start:stop], names) if s.kind == "one" else None
        yb = y[start:stop]
        pred = s.predict(Xb, db)
        # a row the model cannot predict yet is learned, not scored (as progressive_val_score)
        correct += sum(p is not None and p == t for p, t in zip(pred, yb.tolist()))
        scored += sum(p is not None for p in pred)
        s.learn(Xb, db, yb)
        if stop == nxt:
            Xe_df, ye = eval_cache[stop]
            de = dicts_of(Xe_df.to_numpy(), names) if s.kind == "one" else None
            t0 = time.perf_counter()
            acc = accuracy(s.predict(Xe_df, de), ye)
            s.predict_s -= time.perf_counter() - t0  # keep predict_s for the prequential predictions
            r["eval"].append(acc)
            r["prequential"].append(correct / scored if scored else None)
            r["pickled"].append(len(pickle.dumps(s.model)))
            r["learn_s"].append(s.learn_s)
            nxt = next(cp, None)
    r["predict_s_total"] = s.predict_s
    r["wall_s"] = time.perf_counter() - t_model
    return {**rec, **r}


# ---------------------------------------------------------------------------- checks

def check_learn_many() -> dict:
    """For each of our sequential forests: a learn_one loop vs learn_many in batches of 100 on
    imagesegments' first 500 training rows; the largest difference of the test probabilities."""
    import pandas as pd

    from river_forests import XForestClassifier

    X, y, X_te, _, names = load_imagesegments_split()
    out = {}
    test = frame(X_te, names, 0)
    for label, (cls, params) in _common.our_variants().items():
        if cls is XForestClassifier:
            continue
        a = cls(n_estimators=3, seed=SEED, **params)
        b = cls(n_estimators=3, seed=SEED, **params)
        for x, t in zip(dicts_of(X[:500], names), y[:500].tolist()):
            a.learn_one(x, t)
        for start in range(0, 500, BATCH):
            b.learn_many(frame(X[start:start + BATCH], names, start),
                         pd.Series(y[start:start + BATCH], index=pd.RangeIndex(start, start + BATCH)))
        pa = a.predict_proba_many(test)
        pb = b.predict_proba_many(test)[pa.columns]
        out[label] = float(np.nanmax(np.abs(pa.to_numpy(dtype=float) - pb.to_numpy(dtype=float))))
    return out


# ---------------------------------------------------------------------------- XForest-Zero

def zero_repetition(r: int) -> dict:
    """One repetition of XForest-Zero (model seed 42 + r, B's refit rows drawn with seed 1000 + r)."""
    import pandas as pd

    from river_forests import MondrianForestClassifier, XForestClassifier

    X_tr, y_tr, X_te, y_te, names = load_imagesegments_split()
    a_mask, b_mask, bt_mask = np.isin(y_tr, TASK_A), np.isin(y_tr, TASK_B), np.isin(y_te, TASK_B)
    XA, yA = X_tr[a_mask], y_tr[a_mask]
    XB, yB = X_tr[b_mask], y_tr[b_mask]
    XBt, yBt = X_te[bt_mask], y_te[bt_mask]
    test = frame(XBt, names, 0)
    sizes = [m for m in ZERO_SIZES if m is not None and m < len(XB)] + [len(XB)]

    def learn_batches(model, X, y):
        for start in range(0, len(X), BATCH):
            model.learn_many(frame(X[start:start + BATCH], names, start),
                             pd.Series(y[start:start + BATCH],
                                       index=pd.RangeIndex(start, start + len(X[start:start + BATCH]))))

    def score(model):
        return accuracy(_labels(model.predict_proba_many(test)), yBt)

    forests = {"XForest": XForestClassifier, "Mondrian": MondrianForestClassifier}
    res = {f: {arm: {} for arm in ARMS} for f in forests}
    res["RF (sklearn)"] = {ARMS[1]: {}}
    extra = {f: {"nodes_A": [], "nodes_B": [], "refit_s": [], "pickled_before": [],
                 "pickled_after": [], "nodes_after": [], "pickled_after_A_labels": []}
             for f in forests}
    seed = SEED + r
    rng = np.random.default_rng(1000 + r)
    order = rng.permutation(len(XB))
    for fname, cls in forests.items():
        on_a = cls(n_estimators=TREES, seed=seed)
        learn_batches(on_a, XA, yA)
        on_b = cls(n_estimators=TREES, seed=seed)
        learn_batches(on_b, XB, yB)
        extra[fname]["nodes_A"].append(int(on_a.n_nodes))
        extra[fname]["nodes_B"].append(int(on_b.n_nodes))
        state_a, state_b = pickle.dumps(on_a), pickle.dumps(on_b)
        # the same refit with task A's own labels (no new class): the size it keeps
        same = pickle.loads(state_a)
        same.refit_many(frame(XA[:200], names, 0), pd.Series(yA[:200]))
        extra[fname]["pickled_after_A_labels"].append(len(pickle.dumps(same)))
        for m in sizes:
            idx = order[:m]
            Xm, ym = XB[idx], yB[idx]
            refit_df = frame(Xm, names, 0)
            refit_y = pd.Series(ym, index=refit_df.index)
            zero = pickle.loads(state_a)
            t0 = time.perf_counter()
            zero.refit_many(refit_df, refit_y)
            extra[fname]["refit_s"].append(time.perf_counter() - t0)
            extra[fname]["pickled_before"].append(len(state_a))
            extra[fname]["pickled_after"].append(len(pickle.dumps(zero)))
            extra[fname]["nodes_after"].append(int(zero.n_nodes - on_a.n_nodes))
            res[fname][ARMS[0]][str(m)] = score(zero)
            alone = cls(n_estimators=TREES, seed=seed)
            learn_batches(alone, Xm, ym)
            res[fname][ARMS[1]][str(m)] = score(alone)
            upper = pickle.loads(state_b)
            upper.refit_many(refit_df, refit_y)
            res[fname][ARMS[2]][str(m)] = score(upper)
            if fname == "XForest":
                rf = sklearn_rf().set_params(random_state=seed)
                rf.fit(Xm, ym)
                res["RF (sklearn)"][ARMS[1]][str(m)] = float(np.mean(rf.predict(XBt) == yBt))
    return {"rep": r, "sizes": sizes, "n_A": int(len(XA)), "n_B": int(len(XB)),
            "n_B_test": int(len(XBt)), "results": res, "extra": extra}


# ---------------------------------------------------------------------------- the experiment

def jobs(quick: bool) -> list[tuple[str, dict]]:
    from benchmarks.store import slug

    rows = {"elec": QUICK_ROWS["elec"] if quick else ELEC_ROWS,
            "covtype": QUICK_ROWS["covtype"] if quick else COVTYPE_ROWS, "imagesegments": None}
    models = list(streaming_models()) + [RF]
    out = []
    # the longest first: covtype, then elec, imagesegments; river's models first within each
    for dataset in ["covtype", "elec", "imagesegments"]:
        for label in sorted(models, key=lambda m: (m not in (ARF, HT), models.index(m))):
            out.append((f"{dataset}-{slug(label)}",
                        {"kind": "stream", "dataset": dataset, "rows": rows[dataset], "model": label}))
    for r in range(QUICK_ZERO_REPS if quick else ZERO_REPS):
        out.append((f"zero-{r}", {"kind": "zero", "rep": r}))
    out.append(("checks", {"kind": "checks"}))
    return out


def measure(params: dict) -> dict:
    kind = params["kind"]
    t0 = time.perf_counter()
    if kind == "stream":
        return run_stream(params["dataset"], params["rows"], params["model"])
    if kind == "zero":
        out = zero_repetition(params["rep"])
    elif kind == "checks":
        out = {"max_difference": check_learn_many()}
    else:
        raise ValueError(f"unknown measurement {kind!r}")
    out["wall_s"] = time.perf_counter() - t0
    return out


# ---------------------------------------------------------------------------- the report

def task(classes: tuple) -> str:
    return "{" + ", ".join(classes) + "}"


def mib(b: float) -> str:
    return f"{b / 2**20:.2f}" if b >= 2**20 / 100 else f"{b / 2**20:.4f}"


def _nan(values: list) -> list:
    return [float("nan") if v is None else v for v in values]


def _assemble(results: dict) -> tuple[dict, dict | None, dict | None, dict]:
    """The per-dataset records ``{dataset: {..., "models": {label: r}}}`` (models in the
    report's order), the XForest-Zero repetitions merged, the checks, and each part's time
    (the sum of its measurements' wall times)."""
    order = list(streaming_models()) + [RF]
    recs, times = {}, {}
    for dataset in STREAMS:
        got = {r["model"]: r for r in results.values() if r.get("dataset") == dataset}
        if not got:
            continue
        first = next(iter(got.values()))
        rec = {k: first[k] for k in ("dataset", "n_rows", "n_features", "n_classes", "checkpoints",
                                     "window", "n_test") if k in first}
        known = [m for m in order if m in got] + [m for m in got if m not in order]
        rec["models"] = {m: got[m] for m in known}
        recs[dataset] = rec
        times[dataset] = sum(r.get("wall_s", 0.0) for r in got.values())
    reps = sorted((r for r in results.values() if "rep" in r), key=lambda r: r["rep"])
    z = None
    if reps:
        z = {k: reps[0][k] for k in ("sizes", "n_A", "n_B", "n_B_test")}
        z["reps"] = len(reps)
        # the store sorts a record's keys: the forests and arms in the experiment's order
        forests = [f for f in ("XForest", "Mondrian", "RF (sklearn)") if f in reps[0]["results"]]
        z["results"] = {f: {arm: {str(m): [rep["results"][f][arm][str(m)] for rep in reps]
                                  for m in z["sizes"]}
                            for arm in ARMS if arm in reps[0]["results"][f]}
                        for f in forests}
        z["extra"] = {f: {k: [v for rep in reps for v in rep["extra"][f][k]] for k in reps[0]["extra"][f]}
                      for f in forests if f in reps[0]["extra"]}
        times["zero"] = sum(r["wall_s"] for r in reps)
    checks = next((r["max_difference"] for r in results.values() if "max_difference" in r), None)
    if checks:
        labels = list(_common.our_variants())
        checks = {k: checks[k] for k in sorted(checks, key=lambda k: labels.index(k) if k in labels else len(labels))}
    return recs, z, checks, times


def stream_tables(rec: dict) -> list[str]:
    cps = rec["checkpoints"]
    names = list(rec["models"])
    what = "held-out test set" if rec["window"] is None else f"the next {rec['window']:,} rows"
    lines = [f"### Accuracy on {what} (%)", ""]
    lines += _common.markdown_table(["model"] + [f"{n:,}" for n in cps],
                            [[m] + [f"{100 * a:.2f}" for a in rec["models"][m]["eval"]] for m in names])
    lines += ["", "### Prequential accuracy up to n (%; each batch predicted, then learned)", ""]
    lines += _common.markdown_table(["model"] + [f"{n:,}" for n in cps],
                            [[m] + ["-" if a is None or math.isnan(a) else f"{100 * a:.2f}"
                                   for a in rec["models"][m]["prequential"]]
                             for m in names if rec["models"][m]["prequential"] is not None])
    lines += ["", "### Pickled size (MiB)", ""]
    lines += _common.markdown_table(["model"] + [f"{n:,}" for n in cps],
                            [[m] + [mib(b) for b in rec["models"][m]["pickled"]] for m in names])
    lines += ["", "### Cumulative training time (s; the refit forest: sum of its fits so far, "
              "and the last fit alone)", ""]
    rows = []
    for m in names:
        r = rec["models"][m]
        if r["kind"] == "refit":
            rows.append([m] + [f"{c:.2f} ({f:.2f})" for c, f in zip(r["learn_s"], r["fit_s"])] + ["-"])
        else:
            rows.append([m] + [f"{c:.2f}" for c in r["learn_s"]]
                        + [f"{cps[-1] / max(r['learn_s'][-1], 1e-9):,.0f}"])
    lines += _common.markdown_table(["model"] + [f"{n:,}" for n in cps] + ["rows/s learned"], rows)
    return lines + [""]


def zero_tables(z: dict) -> list[str]:
    sizes = z["sizes"]
    lines = [
        f"Task A: imagesegments' classes {task(TASK_A)}, {z['n_A']:,} training rows; task B: "
        f"{task(TASK_B)}, {z['n_B']:,} "
        f"training rows, scored on B's {z['n_B_test']:,} held-out rows. {z['reps']} repetitions "
        "(the m refit rows drawn at random from B's training rows, model seed 42 + r): mean ± "
        "standard deviation of the accuracy (%).",
        "",
    ]
    rows = []
    for model, arms in z["results"].items():
        for arm, by_m in arms.items():
            rows.append([model, arm] + [f"{100 * np.mean(by_m[str(m)]):.1f} ± "
                                        f"{100 * np.std(by_m[str(m)]):.1f}" for m in sizes])
    lines += _common.markdown_table(["model", "trained how", *[f"m = {m}" + (" (all of B)" if i == len(sizes) - 1 else "")
                                                       for i, m in enumerate(sizes)]], rows)
    lines += [""]
    for f, e in z["extra"].items():
        lines.append(
            f"- {f}: {np.mean(e['nodes_A']):,.0f} nodes after task A ({np.mean(e['nodes_B']):,.0f} "
            f"after B's training rows); `refit_many` added {max(e['nodes_after'])} nodes at most "
            f"(0 expected) and took {1000 * np.mean(e['refit_s']):.1f} ms on average; pickled "
            f"size {np.mean(e['pickled_before']) / 1024:,.1f} KiB before, "
            f"{np.mean(e['pickled_after']) / 1024:,.1f} KiB after the refit on B (its nodes' class "
            f"counts widen from {len(TASK_A)} to {len(TASK_A) + len(TASK_B)} labels), "
            f"{np.mean(e['pickled_after_A_labels']) / 1024:,.1f} KiB after a refit on 200 rows "
            "of A (no new label).")
    return lines + [""]


def findings(recs: dict, z: dict | None) -> list[str]:
    out = []
    for name, rec in recs.items():
        models = rec["models"]
        if not all(m in models for m in (XF, RF, ARF)):
            out.append(f"- **{name}**: incomplete (a measurement is missing), see its tables.")
            continue
        final = {m: r["eval"][-1] for m, r in models.items()}
        streaming = {m: a for m, a in final.items() if models[m]["kind"] != "refit"}
        rank = sorted(streaming, key=streaming.get, reverse=True)
        n = rec["checkpoints"][-1]
        xf = final[XF]
        pick = {m: r["pickled"][-1] for m, r in models.items()}
        wins = sum(r == max(models[m]["eval"][i] for m in streaming)
                   for i, r in enumerate(models[XF]["eval"]))
        out.append(
            f"- **{name}** (n = {n:,}): XForest {100 * xf:.2f}% ranks {rank.index(XF) + 1} of "
            f"{len(rank)} streaming models (best: {rank[0]} {100 * streaming[rank[0]]:.2f}%); "
            f"the refit random forest {100 * final[RF]:.2f}% ({100 * (xf - final[RF]):+.2f} points "
            f"for XForest). XForest won at {wins} of {len(rec['checkpoints'])} checkpoints among "
            "the streaming models and beat the refit forest at "
            f"{sum(a > b for a, b in zip(models[XF]['eval'], models[RF]['eval']))}. "
            f"Pickled size at n: XForest {mib(pick[XF])} MiB, "
            + ", ".join(f"{m} {mib(b)}" for m, b in pick.items() if m != XF) + " MiB. "
            f"Training time: XForest {models[XF]['learn_s'][-1]:.2f} s, ARF "
            f"{models[ARF]['learn_s'][-1]:.1f} s, refit forest "
            f"{models[RF]['learn_s'][-1]:.1f} s over the checkpoints ({models[RF]['fit_s'][-1]:.1f} s "
            "for the last fit).")
    if z is not None:
        res = z["results"]
        parts = []
        for m in z["sizes"]:
            k = str(m)
            parts.append(
                f"m = {m}: Zero {100 * np.mean(res['XForest'][ARMS[0]][k]):.1f}%, XForest on m "
                f"{100 * np.mean(res['XForest'][ARMS[1]][k]):.1f}%, RF on m "
                f"{100 * np.mean(res['RF (sklearn)'][ARMS[1]][k]):.1f}%, upper "
                f"{100 * np.mean(res['XForest'][ARMS[2]][k]):.1f}%; Mondrian Zero "
                f"{100 * np.mean(res['Mondrian'][ARMS[0]][k]):.1f}%")
        out.append(f"- **XForest-Zero** ({task(TASK_A)} -> {task(TASK_B)}): " + "; ".join(parts) + ".")
    return out


def plot(recs: dict, z: dict | None, path) -> None:
    """One figure: per dataset (a column), accuracy on the window or test set, prequential
    accuracy, pickled size and training time against samples (xu figures 2, 4, 8); below, the
    XForest-Zero panels (figure 6)."""
    plt = _common.pyplot()
    names = list(recs)
    cols = max(len(names), 2)
    rows = 4 + (z is not None)
    fig = plt.figure(figsize=(5.2 * cols, 4.2 * rows))
    grid = fig.add_gridspec(rows, cols)
    models = []
    for rec in recs.values():
        models += [m for m in rec["models"] if m not in models]
    style = {m: dict(color=f"C{i % 10}", lw=2.4 if m == XF else 1.3,
                     ls="--" if m == RF else ("-" if i < 10 else ":"), marker="o", ms=3)
             for i, m in enumerate(models)}
    for j, name in enumerate(names):
        rec = recs[name]
        cps = rec["checkpoints"]
        axes = [fig.add_subplot(grid[i, j]) for i in range(4)]
        what = "test accuracy" if rec["window"] is None else f"accuracy on the next {rec['window']:,} rows"
        for m, r in rec["models"].items():
            axes[0].plot(cps, r["eval"], label=m, **style[m])
            if r["prequential"] is not None:
                axes[1].plot(cps, _nan(r["prequential"]), label=m, **style[m])
            axes[2].plot(cps, np.asarray(r["pickled"]) / 2**20, label=m, **style[m])
            axes[3].plot(cps, np.maximum(r["learn_s"], 1e-4), label=m, **style[m])
        axes[0].set_title(f"{name}: {rec['n_rows']:,} rows, {rec['n_features']} features, "
                          f"{rec['n_classes']} classes", fontsize=10)
        for ax, label in zip(axes, [what, "prequential accuracy (per batch)", "pickled size (MiB)",
                                    "cumulative training time (s)"]):
            ax.set_ylabel(label)
            ax.set_xscale("log")
            ax.set_xlabel("training samples")
            ax.grid(alpha=0.3, which="both")
        axes[2].set_yscale("log")
        axes[3].set_yscale("log")
        if j == 0:
            axes[0].legend(fontsize=7, loc="lower right")
    if z is not None:
        sizes = z["sizes"]
        for j, fname in enumerate(["XForest", "Mondrian"]):
            ax = fig.add_subplot(grid[4, j])
            for k, (arm, by_m) in enumerate(z["results"][fname].items()):
                ax.errorbar(sizes, [np.mean(by_m[str(m)]) for m in sizes],
                            yerr=[np.std(by_m[str(m)]) for m in sizes], marker="o", capsize=3,
                            label=arm, color=f"C{k}")
            by_m = z["results"]["RF (sklearn)"][ARMS[1]]
            ax.errorbar(sizes, [np.mean(by_m[str(m)]) for m in sizes],
                        yerr=[np.std(by_m[str(m)]) for m in sizes], marker="s", capsize=3,
                        ls="--", color="k", label="RF (sklearn) on B's m rows only")
            ax.set_xscale("log")
            _common.label_axes(ax, f"refit rows m of task B {task(TASK_B)}", "accuracy on B's test rows",
                               f"{fname}: zero-added-node refit, imagesegments\nA = {task(TASK_A)}",
                               title_size=10,
                               grid=dict(alpha=0.3), legend=dict(fontsize=7, loc="lower right"))
    _common.save_figure(fig, path, "XForest vs streaming models and a refit random forest (10 trees, "
                        "batches of 100); xu figures 2, 4, 6, 8", dpi=100, rect=(0, 0, 1, 0.985))


READING = """\
What to look at (the tables below give the numbers of the run named at the top; the findings
above are computed from them).

*Memory (figure 4).* The pickled sizes: whether XForest is the smallest streaming model at
every checkpoint, and whether it still grows with n (far from its `max_nodes` cap) while our
other forests stop at theirs.

*Time (figure 8).* The cumulative training times and the rows learned per second; the refit
forest's time is the sum of its fits at the checkpoints only (xu refit after every batch,
which would cost far more).

*Accuracy (figure 2).* The prequential accuracy of the streaming models under the same
per-batch protocol, and the held-out test accuracy on imagesegments against the refit random
forest (xu: XForest ahead of batch algorithms on few samples, with 100 trees; 10 here).
Next-window accuracy on elec and covtype follows the order of the streams (covtype's rows are
grouped by area, so the next 2,000 rows may hold cover types barely seen yet): one window is
one noisy draw, not a test set. The prequential protocol is per batch here: a model that
learns each row before predicting the next (river's models in `xforest_targets.md`) is
scored differently there.

*XForest-Zero (figure 6).* The Zero row against the rows trained on B's m rows only
(XForest, scikit-learn's forest; xu: comparable) and against the upper reference (a partition
learned on B itself); the Mondrian forest's partition ignores the labels, so its transfer
tells how much of XForest's depends on A's labels. Task A is small here (hundreds of rows,
against xu's far larger first task), and the forests have 10 trees, not 100. `refit_many`
should add no node; the pickled sizes show that "zero additional space" holds for the nodes
only when task B brings labels A did not have (every node's class counts widen)."""


def report(results: dict, quick: bool) -> None:
    md, png = _common.outputs("xforest_comparison", quick)
    version = _common.version_line()
    recs, z, checks, times = _assemble(results)
    if recs or z is not None:
        plot(recs, z, png)
    covtype_rows = QUICK_ROWS["covtype"] if quick else COVTYPE_ROWS
    elec_rows = QUICK_ROWS["elec"] if quick else ELEC_ROWS
    cmd = "python -m benchmarks experiment xforest_comparison" + (" --quick" if quick else "")
    lines = [
        "# XForest against streaming models and a refit random forest (xu figures 2, 4, 6)"
        + (" (quick)" if quick else ""),
        "",
        f"Recorded by `{cmd}`; {version}.",
        "",
        "The claim (Xu et al., Extremely Simple Streaming Forest, section 3): XForest is as "
        "accurate as streaming forests and close to a batch random forest (figure 2), with a far "
        "smaller memory and training time (figures 4 and 8), and its leaves can be refit on a new "
        "task without adding a node (XForest-Zero, section 2.2, figure 6).",
        "",
        f"The setup: elec ({elec_rows:,} rows), covtype (first {covtype_rows:,} rows) and "
        "imagesegments (river's `datasets.ImageSegments()`: 2,310 image regions, 18 features, 7 "
        "classes named by strings). "
        f"Every model has {TREES} trees where that applies and seed {SEED}; every stream is fed in "
        f"batches of {BATCH} rows in its order. XForest: `XForestClassifier(n_estimators={TREES}, "
        f"seed={SEED})`, defaults otherwise, `learn_many` per batch. River: "
        f"`tree.HoeffdingTreeClassifier()` and `forest.ARFClassifier(n_models={TREES}, "
        f"seed={SEED})`, `learn_one` per row. Our other classifiers (every one of "
        "`river_forests.__all__`, one per variant): defaults, "
        f"{TREES} trees, `learn_many` per batch, which for them is a `learn_one` loop. "
        f"*{RF}*: scikit-learn's `RandomForestClassifier(n_estimators={TREES}, "
        f"random_state={SEED})` fit from scratch on every row seen, at each checkpoint.",
        "",
        "- elec and covtype have no test set: at checkpoint n each model (trained on rows 1..n) "
        f"predicts rows n+1..n+{WINDOW:,}, not learned at that point (the streaming models learn "
        "them afterwards, in order). Imagesegments: 70% streamed, 30% held out (scikit-learn's "
        f"`train_test_split(test_size={TEST_SHARE}, random_state={SEED})`), scored after every "
        "batch.",
        "- *Prequential*: each batch is predicted by the model as it stood before the batch, then "
        "learned; the same protocol for every streaming model (river's models predict each row "
        "of the batch with `predict_proba_one` before learning any of them).",
        "- *Pickled size*: `len(pickle.dumps(model))`. *Training time*: the learn calls only "
        "(wall clock; XForest's `learn_many` runs its trees on the package's threads); the refit "
        "forest's is the sum of its fits up to n, as xu count a batch model's time.",
        "- Each (dataset, model) pair is one measurement, possibly run beside others (`--jobs`) "
        "on a shared machine: times are comparable within a table only, roughly.",
        "",
        "## Findings (computed)",
        "",
        *findings(recs, z),
        "",
        "## Reading",
        "",
        READING if not quick else "(quick run: see the full run's report.)",
        "",
    ]
    for dataset, rec in recs.items():
        lines += [f"## {dataset}: {rec['n_rows']:,} rows, {rec['n_features']} features, "
                  f"{rec['n_classes']} classes", ""]
        lines += stream_tables(rec)
        lines += [f"Time for this dataset: {times[dataset]:.0f} s (its measurements' wall times, "
                  "summed).", ""]
    if z is not None:
        lines += [f"## XForest-Zero (section 2.2, figure 6): imagesegments {task(TASK_A)} -> "
                  f"{task(TASK_B)}", ""]
        lines += zero_tables(z)
        lines += [f"Time: {times['zero']:.0f} s.", ""]
    if checks:
        lines += ["## Checks", "",
                  "`learn_many` in batches of 100 against a `learn_one` loop (3 trees, imagesegments' "
                  "first 500 training rows), largest difference of the test probabilities: "
                  + ", ".join(f"{k} {v:.3g}" for k, v in checks.items()) + " (0 expected).", ""]
    missing = _common.missing(jobs(quick), results)
    if missing:
        lines += [_common.missing_line(missing), ""]
    lines += [f"Figure: `{png.name}` (columns: datasets; rows: accuracy on the next window or "
              "test set, prequential accuracy, pickled size, training time, against samples; "
              "last row: XForest-Zero).", ""]
    md.write_text("\n".join(lines) + "\n")
