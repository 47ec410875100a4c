"""The campaign loader's boundary: every hostile campaign file of
tests/fixtures/hostile/campaign is refused quickly, with the field path, as a
CampaignFileError (exit 2 on the command line, one JSON document under --json)."""

from __future__ import annotations

import json
import time

import pytest

from brickyard.campaign import spec
from brickyard.cli import main

from ..conftest import FIXTURES

HOSTILE = FIXTURES / "hostile"
INDEX = json.loads((HOSTILE / "index.json").read_text())
CASES = sorted(k for k in INDEX if k.startswith("campaign/"))


def test_the_corpus_base_without_an_attack_loads():
    doc = json.loads((HOSTILE / "campaign" / "repeats-10e30.campaign.json").read_text().replace(
        "1" + "0" * 30, "1"))
    path = HOSTILE / "campaign" / "_control.campaign.json"
    try:
        path.write_text(json.dumps(doc))
        assert [v.name for v in spec.load(path).layouts] == ["dt", "rp2"]
    finally:
        path.unlink()


@pytest.mark.parametrize("name", CASES)
def test_every_hostile_campaign_is_refused_with_its_field_path(name):
    started = time.monotonic()
    with pytest.raises(spec.CampaignFileError) as err:
        spec.load(HOSTILE / name)
    assert time.monotonic() - started < 5
    expected = INDEX[name]["path"]
    paths = [p.path for p in err.value.problems]
    if expected:
        assert expected in paths, paths
    for line in str(err.value).splitlines():
        assert line.isprintable(), line
    assert "<invalid>" not in str(err.value)      # a refused value is never echoed as a placeholder


@pytest.mark.parametrize("name", CASES)
def test_the_command_line_answers_every_hostile_campaign_with_one_json_document(name, capsys):
    assert main(["campaign", str(HOSTILE / name), "--dry-run", "--json"]) == 2
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["ok"] is False and doc["exit"] == 2 and doc["problems"]
    assert "Traceback" not in captured.err
