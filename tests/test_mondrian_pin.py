"""The Mondrian forests' results, pinned bit for bit.

Refactoring the compiled base (the tree protocol of the purely random issue, and every change
after it) must not change a single Mondrian prediction or node. Each case streams seeded data
through a forest, predicting before learning, and hashes every prediction and, at the end,
every array of every tree. A legitimate change of the model must update these digests in the
commit that makes it, saying why.

To print the current digests: ``python -m tests.test_mondrian_pin``.
"""

import hashlib
import itertools
import random

import numpy as np
import pytest
from river import datasets

from river_forests import MondrianForestClassifier, MondrianForestRegressor

PINS = {
    "phishing-default": "ec808fbb3fe3846a346a7503813c4ca36b2c98fffd62485ce9dbbfd74bf6d115",
    "segments-vote-poisson": "9fea761383eeb1f1303a5dd40824bc203ad7ae30064e43edc64a895d212bac18",
    "trump-regressor": "36d51663b740f237617b6b6736642024fa86ea0519e6237b196f9e8854c14620",
    "late-and-missing-bernoulli": "7ad92bf6bbbc471fa5ab0e6c260c0858c8cbb84e19c30e683bd6ccbee333419a",
    "wide-reservoir": "8104c49b8970264da0333b133e8cfeae53a06338a88243d681f26ae9a2a9e121",
}


def _late_and_missing():
    rng = random.Random(3)
    for i in range(3000):
        x = {f"f{j}": rng.random() for j in range(3 + min(i // 400, 5))}
        if rng.random() < 0.1:
            x["f1"] = float("nan")
        if rng.random() < 0.05:
            x.pop("f0")
        yield x, ("a", "b", "c")[int(x.get("f0", 0.5) * 2.99)]


def _wide():
    rng = random.Random(5)
    for _ in range(1500):
        words = rng.sample(range(300), 12)
        x = {f"w{w}": rng.random() for w in words}
        yield x, int(sum(v for k, v in x.items() if int(k[1:]) < 150) > 3)


CASES = {
    "phishing-default": (MondrianForestClassifier, dict(seed=42), lambda: datasets.Phishing()),
    "segments-vote-poisson": (
        MondrianForestClassifier,
        dict(n_estimators=5, aggregation="vote", subsampling="poisson", max_nodes=255, seed=7),
        lambda: itertools.islice(datasets.ImageSegments(), 1200),
    ),
    "trump-regressor": (MondrianForestRegressor, dict(seed=3), lambda: datasets.TrumpApproval()),
    "late-and-missing-bernoulli": (
        MondrianForestClassifier,
        dict(n_estimators=4, subsampling="bernoulli", subsample_rate=0.6, growth=3.0, seed=11),
        _late_and_missing,
    ),
    "wide-reservoir": (
        MondrianForestClassifier,
        dict(n_estimators=4, features_per_tree=8, max_nodes=511, seed=13),
        _wide,
    ),
}


#: the tree state as it was when the pins were taken; keys added since (the state's version,
#: its split kind, new parameters) are not part of the pinned results
PINNED_STATE = sorted([
    "columns", "consistent", "feature", "fixed_lifetime", "hazard", "left", "lifetime",
    "lifetime_scale", "lower", "max_features", "max_nodes", "n_columns", "n_features", "n_seen",
    "n_values", "origin", "parent", "rate", "rescale_factor", "right", "rng", "root", "scale",
    "smoothing", "snapshot", "subsample_mode", "subsample_rate", "task", "tau", "threshold",
    "upper", "value", "warmup", "weight",
])


#: the defaults when the pins were taken (the paper's growth, mean leaves); the defaults
#: changed in issue 17, the algorithm these parameters select did not
PINNED_DEFAULTS = dict(growth_scale=2.0, recycling=False, max_nodes=4095, memory_budget=None)

#: state keys renamed since the pins were taken (hashed under their name then)
RENAMED_STATE = {"max_features": "features_per_tree"}
PINNED_REGRESSOR = dict(leaf_model="mean")


def digest(case: str) -> str:
    cls, params, stream = CASES[case]
    extra = PINNED_REGRESSOR if cls is MondrianForestRegressor else {}
    model = cls(**{**PINNED_DEFAULTS, **extra, **params})
    h = hashlib.sha256()
    for x, y in stream():
        if cls is MondrianForestRegressor:
            dist = model.predict_one(x, with_dist=True)
            h.update(np.array([dist.mu, dist.sigma]).tobytes())
        else:
            proba = model.predict_proba_one(x)
            h.update(repr(sorted(proba.items(), key=lambda kv: repr(kv[0]))).encode())
        model.learn_one(x, y)
    for tree in model.trees:
        state = tree.get_state()
        for key in PINNED_STATE:
            value = state[RENAMED_STATE.get(key, key)]
            h.update(key.encode())
            h.update(value.tobytes() if isinstance(value, np.ndarray) else repr(value).encode())
    return h.hexdigest()


@pytest.mark.parametrize("case", sorted(CASES))
def test_mondrian_results_are_pinned(case):
    assert digest(case) == PINS[case], (
        f"the Mondrian forest's results changed on {case!r}: a refactoring must keep them "
        "bit for bit; a deliberate change updates PINS and says why"
    )


if __name__ == "__main__":
    for name in sorted(CASES):
        print(f'    "{name}": "{digest(name)}",')
