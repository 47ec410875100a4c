"""`brickyard probe FILE`: the targets it builds from a topology (one per brick filesystem and
the client), shown by --dry-run without touching a host; bad choices exit 2."""

from brickyard.cli import main
from tests.conftest import EXAMPLES

RAID5 = str(EXAMPLES / "eight-node-raid5.brickyard.json")


def test_dry_run_lists_one_target_per_brick_filesystem_and_the_client(capsys):
    code = main(["probe", RAID5, "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0
    targets = out.splitlines()[0].removeprefix("probe targets: ").split()
    assert targets == [f"n00{i}:/mnt/gluster" for i in range(1, 9)] + ["client:/tmp"]
    assert "clients=client" in out


def test_an_unknown_client_or_volume_exits_2(capsys):
    assert main(["probe", RAID5, "--client", "nobody", "--dry-run"]) == 2
    assert "no such client" in capsys.readouterr().err
    assert main(["probe", RAID5, "--volume", "nope", "--dry-run"]) == 2


def test_dry_run_with_json_prints_one_json_document_of_the_targets(capsys):
    import json

    code = main(["probe", RAID5, "--dry-run", "--json"])
    doc = json.loads(capsys.readouterr().out)   # was the text lines, not JSON
    assert code == 0 and doc["ok"] is True
    assert doc["targets"] == [f"n00{i}:/mnt/gluster" for i in range(1, 9)] + ["client:/tmp"]
    assert doc["params"] == {"clients": "client"}
