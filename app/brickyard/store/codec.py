"""Result objects to plain JSON data and back, strictly: the export format and the
provenance column both use it, and a bad import file gets an error naming the field."""

from __future__ import annotations

import dataclasses
from typing import Any

from brickyard.core.results import Metric, Provenance, RunResult, RunStatus, StepResult, WorkerTiming


class RecordError(ValueError):
    """A run record that does not describe a RunResult; the message names the field."""


def provenance_to_dict(p: Provenance) -> dict[str, Any]:
    return dataclasses.asdict(p)


def step_to_dict(step: StepResult) -> dict[str, Any]:
    return {
        "index": step.index,
        "params": step.params,
        "repeat": step.repeat,
        "workers": [dataclasses.asdict(w) for w in step.workers],
        "metrics": [dataclasses.asdict(m) for m in step.metrics],
        "start_skew": step.start_skew,
        "flags": list(step.flags),
        "valid": step.valid,
        "note": step.note,
    }


def run_to_dict(run: RunResult) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "workload": run.workload,
        "status": run.status.value,
        "started_at": run.started_at,
        "ended_at": run.ended_at,
        "provenance": provenance_to_dict(run.provenance),
        "steps": [step_to_dict(s) for s in run.steps],
        "error": run.error,
        "failed_host": run.failed_host,
    }


def _take(data: Any, where: str, key: str, kinds: type | tuple, default: Any = dataclasses.MISSING) -> Any:
    if not isinstance(data, dict):
        raise RecordError(f"{where}: expected an object, found {type(data).__name__}")
    if key not in data:
        if default is dataclasses.MISSING:
            raise RecordError(f"{where}.{key}: missing")
        return default
    value = data[key]
    kinds_t = kinds if isinstance(kinds, tuple) else (kinds,)
    # bool is an int in Python; never accept it where a number is meant
    if isinstance(value, bool) and bool not in kinds_t:
        raise RecordError(f"{where}.{key}: expected {_names(kinds_t)}, found a boolean")
    if not isinstance(value, kinds_t):
        raise RecordError(f"{where}.{key}: expected {_names(kinds_t)}, found {type(value).__name__}")
    return value


def _names(kinds: tuple) -> str:
    words = {str: "a string", int: "an integer", float: "a number", bool: "true/false",
             dict: "an object", list: "a list", type(None): "null"}
    return " or ".join(dict.fromkeys(words.get(k, k.__name__) for k in kinds))


NUM = (int, float)


def provenance_from_dict(data: Any, where: str = "provenance") -> Provenance:
    hosts = _take(data, where, "hosts", dict)
    for host, info in hosts.items():
        if not isinstance(info, dict) or not all(isinstance(v, str) for v in info.values()):
            raise RecordError(f"{where}.hosts.{host}: expected an object of strings")
    options = _take(data, where, "volume_options", dict, {})
    if not all(isinstance(v, str) for v in options.values()):
        raise RecordError(f"{where}.volume_options: values must be strings, as gluster prints them")
    return Provenance(
        brickyard_version=_take(data, where, "brickyard_version", str),
        hosts=hosts,
        target=_take(data, where, "target", str),
        target_kind=_take(data, where, "target_kind", str),
        volume_name=_take(data, where, "volume_name", str, ""),
        volume_info_xml=_take(data, where, "volume_info_xml", str, ""),
        volume_options=options,
        layout=_take(data, where, "layout", dict, {}),
        mount_options=_take(data, where, "mount_options", str, ""),
        workload=_take(data, where, "workload", str, ""),
        parameters=_take(data, where, "parameters", dict, {}),
        extra=_take(data, where, "extra", dict, {}),
    )


def step_from_dict(data: Any, where: str) -> StepResult:
    workers = []
    for i, w in enumerate(_take(data, where, "workers", list)):
        wh = f"{where}.workers[{i}]"
        workers.append(WorkerTiming(
            worker=_take(w, wh, "worker", int), host=_take(w, wh, "host", str),
            start=float(_take(w, wh, "start", NUM)), end=float(_take(w, wh, "end", NUM)),
            bytes=_take(w, wh, "bytes", int, 0), ops=_take(w, wh, "ops", int, 0),
            error=_take(w, wh, "error", str, "")))
    metrics = []
    for i, m in enumerate(_take(data, where, "metrics", list)):
        mh = f"{where}.metrics[{i}]"
        metrics.append(Metric(name=_take(m, mh, "name", str), value=float(_take(m, mh, "value", NUM)),
                              unit=_take(m, mh, "unit", str), label=_take(m, mh, "label", str, "")))
    skew = _take(data, where, "start_skew", dict, {})
    if not all(isinstance(v, NUM) and not isinstance(v, bool) for v in skew.values()):
        raise RecordError(f"{where}.start_skew: values must be seconds")
    flags = _take(data, where, "flags", list, [])
    if not all(isinstance(f, str) for f in flags):
        raise RecordError(f"{where}.flags: expected a list of strings")
    return StepResult(
        index=_take(data, where, "index", int), params=_take(data, where, "params", dict),
        repeat=_take(data, where, "repeat", int), workers=tuple(workers), metrics=tuple(metrics),
        start_skew={k: float(v) for k, v in skew.items()}, flags=tuple(flags),
        valid=_take(data, where, "valid", bool, True), note=_take(data, where, "note", str, ""))


def run_from_dict(data: Any, where: str = "run") -> RunResult:
    status_text = _take(data, where, "status", str)
    try:
        status = RunStatus(status_text)
    except ValueError:
        raise RecordError(f"{where}.status: {status_text!r} is not one of "
                          f"{', '.join(s.value for s in RunStatus)}") from None
    run_id = _take(data, where, "run_id", str)
    if not run_id or len(run_id) > 64:
        raise RecordError(f"{where}.run_id: must be 1-64 characters")
    ended = _take(data, where, "ended_at", (int, float, type(None)), None)
    return RunResult(
        run_id=run_id, workload=_take(data, where, "workload", str), status=status,
        started_at=float(_take(data, where, "started_at", NUM)),
        ended_at=None if ended is None else float(ended),
        provenance=provenance_from_dict(_take(data, where, "provenance", dict), f"{where}.provenance"),
        steps=[step_from_dict(s, f"{where}.steps[{i}]") for i, s in enumerate(_take(data, where, "steps", list))],
        error=_take(data, where, "error", str, ""), failed_host=_take(data, where, "failed_host", str, ""))
