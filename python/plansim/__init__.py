"""plansim for Python: the CLI's subcommands as functions returning their --json documents as dicts.

    import plansim
    r = plansim.run("scenarios/seed-pipeline-4x16.yaml", set={"training.micro_batch": 2})
    r["iteration_time_s"], r["mfu"], r["stages"][0]["bubble_fraction"]

A scenario is a path, or a dict in the scenario YAML schema (relative paths in it, such as `topology`,
are taken from the current directory). `set` takes {"key.path": value} or ["key.path=value", ...] like
--set; `calibration` a profile path or "none" like --calibration. Bad input raises plansim.ConfigError
(a ValueError) with .file, .line, .column and .message; the simulations run without the GIL.
README "Python" lists every function.
"""

import contextlib as _contextlib
import html as _html
import json as _json
import os as _os
import tempfile as _tempfile

from . import _plansim
from ._plansim import ConfigError

ConfigError.__module__ = "plansim"  # shown as plansim.ConfigError

__all__ = ["ConfigError", "run", "sweep", "search", "lint", "collective", "topo", "calibrate", "validate",
           "report", "ops_frame"]

_DICT_NAME = "<dict>"


def _value(v):
    """A --set right-hand side: strings as given, everything else as YAML (JSON is YAML)."""
    return v if isinstance(v, str) else _json.dumps(v)


def _sets(set, calibration):
    if set is None:
        out = []
    elif isinstance(set, dict):
        out = [f"{k}={_value(v)}" for k, v in set.items()]
    elif isinstance(set, str):
        out = [set]
    else:
        out = [str(s) for s in set]
    if calibration is not None:
        c = str(calibration)
        out.append("calibration=" + (c if c == "none" else _os.path.normpath(_os.path.abspath(c))))
    return out


def _key_values(d, what):
    """{"key": [v1, v2]} or ["key=v1,v2"] -> ["key=v1,v2"] (--vary / --only)."""
    if d is None:
        return []
    if isinstance(d, dict):
        out = []
        for k, vs in d.items():
            if isinstance(vs, (str, int, float, bool)):
                vs = [vs]
            out.append(f"{k}=" + ",".join(_value(v) for v in vs))
        return out
    if isinstance(d, str):
        return [d]
    return [str(x) for x in d]


def _absolute_paths(scenario):
    s = dict(scenario)
    for key in ("topology", "calibration"):
        v = s.get(key)
        if isinstance(v, str) and v != "none" and not _os.path.isabs(v):
            s[key] = _os.path.abspath(v)
    s.setdefault("name", "scenario")
    return s


@_contextlib.contextmanager
def _scenario_file(scenario):
    """A path for the library: the path given, or the dict written as YAML (JSON) to a temporary file.
    Errors about that file name `<dict>`; their line numbers count in json.dumps(dict, indent=2)."""
    if isinstance(scenario, dict):
        with _tempfile.TemporaryDirectory(prefix="plansim-") as d:
            path = _os.path.join(d, "scenario.yaml")
            with open(path, "w") as f:
                _json.dump(_absolute_paths(scenario), f, indent=2)
            try:
                yield path
            except ConfigError as e:
                if getattr(e, "file", None) == path:
                    e.file = _DICT_NAME
                    e.args = (str(e.args[0]).replace(path, _DICT_NAME, 1),)
                raise
    else:
        yield _os.fspath(scenario)


def run(scenario, set=None, calibration=None, ops=False, symmetry=True):
    """`plansim run --json`: one simulated iteration. The dict is the --json report; with ops=True its
    "ops" are columns (numpy arrays over the simulator's records, no copy): label (an index into
    "op_labels", each {"name", "class"}), rank, start_s, duration_s; see ops_frame()."""
    with _scenario_file(scenario) as path:
        text, cols, labels = _plansim.run(path, _sets(set, calibration), bool(symmetry), bool(ops))
    report = _json.loads(text)
    report.pop("ops", None)
    if ops:
        report["ops"] = cols
        report["op_labels"] = labels
    return report


def ops_frame(report):
    """The per-op records of run(..., ops=True) as a pandas DataFrame (name and class categorical)."""
    import numpy as np
    import pandas as pd

    ops, labels = report["ops"], report["op_labels"]
    names = sorted({l["name"] for l in labels})
    classes = sorted({l["class"] for l in labels})
    name_code = np.array([names.index(l["name"]) for l in labels], dtype=np.int32)
    class_code = np.array([classes.index(l["class"]) for l in labels], dtype=np.int32)
    label = np.asarray(ops["label"])
    return pd.DataFrame({
        "name": pd.Categorical.from_codes(name_code[label] if len(label) else [], categories=names),
        "class": pd.Categorical.from_codes(class_code[label] if len(label) else [], categories=classes),
        "rank": ops["rank"],
        "start_s": ops["start_s"],
        "duration_s": ops["duration_s"],
    })


def sweep(scenario, vary, set=None, calibration=None, jobs=0):
    """`plansim sweep --json`: a list with one entry per point ({"point", "valid", "metrics" or "error"}).
    vary: {"training.micro_batch": [1, 2, 4]} or ["training.micro_batch=1,2,4"]; the last key varies fastest."""
    with _scenario_file(scenario) as path:
        return _json.loads(_plansim.sweep(path, _key_values(vary, "vary"), _sets(set, calibration), int(jobs)))


def search(scenario, set=None, calibration=None, gpus=0, top=10, jobs=0, max_plans=0, only=None):
    """`plansim search --json`: the fastest plans that fit. only: {"parallel.zero": [0, 1]}."""
    with _scenario_file(scenario) as path:
        return _json.loads(_plansim.search(path, _sets(set, calibration), int(gpus), int(top), int(jobs),
                                           int(max_plans), _key_values(only, "only")))


def lint(scenario, set=None, calibration=None, thresholds=None, jobs=0):
    """`plansim lint --json`: findings with their fixes' measured costs. thresholds: {"bubble_overhead": 0.5}."""
    th = [f"{k}={v}" for k, v in (thresholds or {}).items()] if isinstance(thresholds, (dict, type(None))) \
        else [str(t) for t in thresholds]
    with _scenario_file(scenario) as path:
        return _json.loads(_plansim.lint(path, _sets(set, calibration), th, int(jobs)))


def topo(file, nodes=None, dot=False):
    """`plansim topo --json` (dot=True: the --dot Graphviz text instead)."""
    nodes = None if nodes is None else int(nodes)
    if dot:
        return _plansim.topo_dot(_os.fspath(file), nodes)
    return _json.loads(_plansim.topo(_os.fspath(file), nodes))


def collective(topology=None, op="all_reduce", gpus=0, nodes=None, algo="auto", proto="auto", min_bytes="8",
               max_bytes="128M", factor=2.0, dtype="float", calibration=None, compare=None):
    """`plansim collective --json`: predicted nccl-tests rows ({"op", "gpus", "topology", "rows"}); with
    compare=FILE the published tables' rows with the errors ({"compare", "tables"})."""
    return _json.loads(_plansim.collective(
        "" if topology is None else _os.fspath(topology), None if nodes is None else int(nodes), op, int(gpus),
        algo, proto, str(min_bytes), str(max_bytes), float(factor), dtype,
        "" if calibration is None else _os.fspath(calibration), "" if compare is None else _os.fspath(compare)))


def validate(sim=None, measured=None, tolerance=0.10, runs=None, calibration=None, datasets=None, expect=None, jobs=0):
    """`plansim validate`: sim + measured (report JSON or Kineto trace) -> per-class errors; or runs=[files]
    -> predicted vs published per run and MAPE per data set (with expect: "regressions" lists the rises)."""
    if runs is not None:
        runs = [runs] if isinstance(runs, (str, _os.PathLike)) else list(runs)
        text, messages = _plansim.validate_runs([_os.fspath(r) for r in runs], _sets(None, calibration),
                                                list(datasets or []), "" if expect is None else _os.fspath(expect),
                                                int(jobs))
        out = _json.loads(text)
        out["regressions"] = list(messages)
        return out
    if sim is None or measured is None:
        e = ConfigError("plansim validate: give sim and measured, or runs")
        e.file, e.line, e.column, e.message = "plansim validate", 0, 0, "give sim and measured, or runs"
        raise e
    return _json.loads(_plansim.validate_report(_os.fspath(sim), _os.fspath(measured), float(tolerance)))


def calibrate(measured=None, runs=None, fit=None, keep=None, datasets=None, name=None, applies_to=None, stack=None,
              loo=True, loo_exact=False, jobs=0):
    """`plansim calibrate`: bench JSON files -> {"profile": YAML text}; or runs=FILE (or [files], fitted as one
    set) with fit=[keys] -> the fit ({"fitted", "runs", "profile", ...})."""
    applies = [applies_to] if isinstance(applies_to, str) else list(applies_to or [])
    if runs is not None:
        keep_list = [f"{k}={v}" for k, v in keep.items()] if isinstance(keep, dict) else list(keep or [])
        runs = [runs] if isinstance(runs, (str, _os.PathLike)) else list(runs)
        return _json.loads(_plansim.calibrate_runs([_os.fspath(r) for r in runs], list(fit or []), keep_list, applies,
                                                   list(datasets or []), name or "", stack or "", bool(loo),
                                                   bool(loo_exact), int(jobs)))
    files = [measured] if isinstance(measured, (str, _os.PathLike)) else list(measured or [])
    return {"profile": _plansim.calibrate_bench([_os.fspath(f) for f in files], applies)}


def _json_ready(doc):
    """A run(ops=True) dict's op columns back to the --json's per-op records; other dicts as they are."""
    ops, labels = doc.get("ops"), doc.get("op_labels")
    if not isinstance(ops, dict) or labels is None:
        return doc
    out = {k: v for k, v in doc.items() if k not in ("ops", "op_labels")}
    out["ops"] = [{"name": labels[int(l)]["name"], "class": labels[int(l)]["class"], "rank": int(r),
                   "start_s": float(s), "duration_s": float(d)}
                  for l, r, s, d in zip(ops["label"], ops["rank"], ops["start_s"], ops["duration_s"])]
    return out


def report(*documents, title=None):
    """`plansim report`: one self-contained HTML page (a string) with a section per document, each a
    path to a run/lint/validate --json file or the dict run(), lint() or validate() returned."""
    with _tempfile.TemporaryDirectory(prefix="plansim-") as d:
        files, names = [], {}
        for i, doc in enumerate(documents):
            if isinstance(doc, dict):
                path = _os.path.join(d, f"document-{i + 1}.json")
                with open(path, "w") as f:
                    _json.dump(_json_ready(doc), f, indent=2)
                names[path] = f"<dict {i + 1}>"
                files.append(path)
            else:
                files.append(_os.fspath(doc))
        try:
            html, _notes = _plansim.report(files, title or "")
        except ConfigError as e:
            if getattr(e, "file", None) in names:
                path = e.file
                e.file = names[path]
                e.args = (str(e.args[0]).replace(path, e.file, 1),)
            raise
    for path, name in names.items():  # the page names a dict as "<dict N>" (escaped), not its temporary file
        html = html.replace(_html.escape(path), _html.escape(name))
    return html
