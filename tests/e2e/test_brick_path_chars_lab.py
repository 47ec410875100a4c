"""The brick-path characters the planner refuses, tried on real gluster: ``volume create`` takes
them, and then the brick either does not start or serves another directory."""

from __future__ import annotations

import pytest

from brickyard.core.brickrules import path_char_problem

SCRIPT = r'''
v="$1"; p="$2"; cut="${p%% *}"
gluster --mode=script volume create "$v" "node1:$p" >/dev/null 2>&1 || { echo "create=refused"; exit 0; }
echo "create=ok"
if gluster --mode=script volume start "$v" >/dev/null 2>&1; then echo "start=ok"; else echo "start=failed"; fi
# which directory the brick really took as its root: the one carrying the new volume-id
[ "$cut" != "$p" ] && getfattr --absolute-names -n trusted.glusterfs.volume-id -- "$cut" >/dev/null 2>&1 && echo "served=$cut"
gluster --mode=script volume stop "$v" force >/dev/null 2>&1
gluster --mode=script volume delete "$v" >/dev/null 2>&1
rm -rf -- "$p"
[ "$cut" != "$p" ] && rm -rf -- "$cut"
exit 0
'''


@pytest.mark.parametrize("char, expect", [(" ", "served"), ('"', "start=failed"), ("`", "start=failed"),
                                          ("\\", "start=failed")])
def test_gluster_cannot_serve_a_brick_path_with(lab, char, expect):
    lab.form_pool(lab.servers[:4])  # whatever earlier tests left: glusterd stages create on every peer
    path = f"/srv/brick2/bychars{ord(char)}x{char}y"
    assert path_char_problem(path)  # the planner refuses it
    out = lab.ssh("node1", ["sh", "-c", SCRIPT, "sh", f"bychars{ord(char)}", path], timeout=180).stdout
    facts = dict(line.split("=", 1) for line in out.split() if "=" in line)
    assert facts.get("create") == "ok", out  # gluster itself lets it through create
    if expect == "served":
        assert facts.get("served") == path.split(" ")[0], out
    else:
        assert facts.get("start") == "failed", out
