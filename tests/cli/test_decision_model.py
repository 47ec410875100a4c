"""`brickyard decision` checks the model: predicted and error columns beside the measured ones,
each layout predicted from the others, or from ``--calibrate``; ``--no-model-check`` leaves
them out."""

import json
import random

from brickyard.cli import main
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def stored(tmp_path):
    db = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    runs = [synthetic_run(random.Random(1), layout="replica"), synthetic_run(random.Random(2), layout="disperse")]
    with HistoryStore(db) as store:
        for r in runs:
            store.add_run(r)
    return db, [r.run_id[:10] for r in runs]


def test_each_layout_is_predicted_from_the_other_and_the_error_is_printed(capsys, tmp_path):
    db, ids = stored(tmp_path)
    code, out, _ = run(capsys, ["decision", *ids, "--db", db])
    assert code == 0
    lines = out.splitlines()
    pred = next(line for line in lines if line.startswith("predicted write 4M × 4 files"))
    err = next(line for line in lines if line.startswith("model error write 4M × 4 files"))
    assert pred.count("(pred.)") == 2 and err.count("%") == 2
    assert any(line.startswith("model check:") and "without its own runs" in line for line in lines)


def test_a_given_calibration_predicts_every_layout_and_no_model_check_leaves_it_out(capsys, tmp_path):
    db, ids = stored(tmp_path)
    code, out, _ = run(capsys, ["decision", *ids, "--db", db, "--calibrate", ids[0], "--json"])
    doc = json.loads(out)
    figures = {r["key"]: r["figures"] for r in doc["rows"]}
    key = f"pred:write:4:{4 * 2**20}"
    assert all(f[key]["source"] == "predicted" for f in figures.values())
    assert sum("a fit, not a test" in f[key]["note"] for f in figures.values()) == 1
    code, out, _ = run(capsys, ["decision", *ids, "--db", db, "--no-model-check", "--json"])
    assert not any(c["key"].startswith(("pred:", "err:")) for c in json.loads(out)["columns"])
