"""The runner: every (stream, model) pair of a selection, each measured once per version.

For each pair it looks for a reusable record in the store (same samples, config, protocol and
version, see ``benchmarks.store``) and runs only what is missing, so an interrupted run
resumes where it stopped, and a run of our forests reuses every peer's record. Pairs run in
``jobs`` worker processes (spawned), stream by stream from the cheapest stream (length times
width) to the dearest, so that an interrupted first run leaves as many streams measured by
every model as it can (the report ranks only those); each writes its record as it ends.
"""

from __future__ import annotations

import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context

from benchmarks import models as model_registry
from benchmarks import store
from benchmarks import streams as stream_registry

QUICK_N = 2_000

#: rough cost per sample of each family, relative (orders the jobs within a stream)
_COST = {"river": 20.0, "moa": 3.0, "ours": 1.0}


@dataclass(frozen=True)
class Job:
    mode: str
    stream: str
    task: str
    model: str
    n: int

    @property
    def spec(self):
        return model_registry.get(self.task, self.model)


def length(stream, quick: bool) -> int:
    return min(stream.n, QUICK_N) if quick else stream.n


def plan(quick=False, streams=None, families=None, names=None, half=None, mode=None) -> list[Job]:
    """The jobs of a selection, whether or not they are stored already."""
    mode = mode or ("quick" if quick else "full")
    jobs = []
    for s in stream_registry.STREAMS.values():
        if (streams and s.name not in streams) or (half and s.half != half):
            continue
        for m in model_registry.models(s.task, stream=s):
            if (families and m.family not in families) or (names and m.name not in names):
                continue
            jobs.append(Job(mode, s.name, s.task, m.name, length(s, quick)))
    width = {s: _width(s) for s in {j.stream for j in jobs}}
    jobs.sort(key=lambda j: (j.n * width[j.stream], j.stream, -_COST[j.spec.family]))
    return jobs


def _width(name: str) -> int:
    """How many features the stream's first 200 samples show (its cost grows with it)."""
    return len({k for x, _ in stream_registry.STREAMS[name].samples(200) for k in x})


def _data(job: Job):
    data = stream_registry.STREAMS[job.stream].samples(job.n)
    return data, stream_registry.data_fingerprint(data)


def pending(jobs: list[Job], force=False) -> list[Job]:
    """The jobs without a reusable record."""
    out = []
    digests = {}
    for job in jobs:
        key = (job.stream, job.n)
        if key not in digests:
            digests[key] = _data(job)[1]
        version = store.version_of(job.spec.family)["key"]
        record = store.load(store.path(job.mode, job.stream, job.model, version, job.task))
        if force or not store.reusable(record, digests[key], job.spec.config):
            out.append(job)
    return out


def run_job(job: Job, max_seconds: float | None = None) -> tuple[Job, str]:
    """Run one job and store its record; returns a line saying how it went."""
    from benchmarks import harness

    try:
        stream = stream_registry.STREAMS[job.stream]
        data, digest = _data(job)
        t0 = time.monotonic()
        record = harness.run(stream, job.spec, data, digest, job.mode, max_seconds=max_seconds)
        store.save(record, store.path(job.mode, job.stream, job.model, record["version"]["key"], job.task))
        rate = record["samples_per_s"] or 0
        return job, (f"{job.stream:<20} {job.model:<34} {record['metric_name']} {record['metric']:.4f}"
                     f"  {rate:>9,.0f} samples/s  ({time.monotonic() - t0:.0f} s wall)"
                     + ("" if record["status"] == "ok" else f"  [{record['status']}]"))
    except Exception:
        return job, f"{job.stream:<20} {job.model:<34} FAILED\n{traceback.format_exc()}"


def execute(jobs: list[Job], n_jobs: int = 1, max_seconds: float | None = None, out=sys.stderr) -> int:
    """Run `jobs` (already filtered by :func:`pending`); returns how many failed."""
    failed = 0
    if not jobs:
        print("nothing to run: every record is stored", file=out)
        return 0
    print(f"{len(jobs)} runs, {n_jobs} at a time", file=out, flush=True)
    if n_jobs <= 1:
        for k, job in enumerate(jobs, 1):
            _, line = run_job(job, max_seconds)
            failed += "FAILED" in line
            print(f"[{k}/{len(jobs)}] {line}", file=out, flush=True)
        return failed
    with ProcessPoolExecutor(max_workers=n_jobs, mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(run_job, job, max_seconds) for job in jobs]
        for k, future in enumerate(as_completed(futures), 1):
            _, line = future.result()
            failed += "FAILED" in line
            print(f"[{k}/{len(jobs)}] {line}", file=out, flush=True)
    return failed


# ----------------------------------------------------------------------------- experiments
# A paper's reproduction is a module of ``benchmarks/experiments/`` with three names:
#   ``jobs(quick) -> list[(key, params)]``  the measurements (a key names one in the store),
#   ``measure(params) -> dict``             one measurement, in a worker process,
#   ``report(results, quick) -> None``       tables and plots from ``{key: result}``,
# and may define ``family(params) -> str``: "ours" (the default) or a peer's family ("river",
# "moa") for a measurement of a peer alone, keyed by that library's version and reused
# until it changes (as the benchmark reuses the peers' records).
# The runner runs what the store lacks (records keyed like every other record of ours: the
# version of the package's code), in ``jobs`` processes, and hands every result to ``report``.


def _job_version(module, params: dict) -> dict:
    family = getattr(module, "family", None)
    return store.version_of(family(params) if family else "ours")


def _experiment_job(name: str, key: str, params: dict, mode: str) -> tuple[str, str]:
    import datetime
    import importlib

    try:
        module = importlib.import_module(f"benchmarks.experiments.{name}")
        t0 = time.monotonic()
        result = module.measure(params)
        record = {
            "experiment": name, "key": key, "params": params, "result": result,
            "version": _job_version(module, params), "protocol": store.PROTOCOL, "status": "ok",
            "seconds_wall": time.monotonic() - t0,
            "recorded": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
        store.save(record, store.path(mode, "experiment", key, record["version"]["key"]))
        return key, f"{name} {key}  ({record['seconds_wall']:.0f} s)"
    except Exception:
        return key, f"{name} {key} FAILED\n{traceback.format_exc()}"


def run_experiment(name: str, quick: bool = False, n_jobs: int = 1, force: bool = False,
                   out=sys.stderr) -> int:
    """Run the experiment `name` (what the store lacks), then its report; returns failures."""
    import importlib

    module = importlib.import_module(f"benchmarks.experiments.{name}")
    mode = f"experiment-{name}" + ("-quick" if quick else "")
    wanted = module.jobs(quick)
    todo = []
    for key, params in wanted:
        record = store.load(store.path(mode, "experiment", key, _job_version(module, params)["key"]))
        if force or record is None or record.get("params") != params or record.get("protocol") != store.PROTOCOL:
            todo.append((key, params))
    print(f"{name}: {len(wanted)} measurements, {len(wanted) - len(todo)} stored", file=out, flush=True)
    failed = 0
    if n_jobs <= 1:
        lines = (_experiment_job(name, k, p, mode) for k, p in todo)
        for k, (_, line) in enumerate(lines, 1):
            failed += "FAILED" in line
            print(f"[{k}/{len(todo)}] {line}", file=out, flush=True)
    else:
        with ProcessPoolExecutor(max_workers=n_jobs, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(_experiment_job, name, k, p, mode) for k, p in todo]
            for k, future in enumerate(as_completed(futures), 1):
                _, line = future.result()
                failed += "FAILED" in line
                print(f"[{k}/{len(todo)}] {line}", file=out, flush=True)
    results = {}
    for key, params in wanted:
        record = store.load(store.path(mode, "experiment", key, _job_version(module, params)["key"]))
        if record is not None:
            results[key] = record["result"]
    module.report(results, quick)
    return failed
