"""Editors for what a volume needs besides bricks: clients, their mounts, volume options.

Reusable from any view (the planner window, the Run view): each dialog returns a core
``Edit`` for ``Session.push``, so every change is undoable and every view follows it.

- ``ClientDialog`` / ``run_client_dialog``: add or edit a client host.
- ``MountDialog`` / ``run_mount_dialog``: add or edit a mount (volume, client, mount point,
  ``mount -o`` options, fstab line), with "New client…" folded into the same undo step.
- ``VolumeOptionsEditor``: the current volume's gluster options, names completed from gluster
  10.3's catalog and values checked as glusterd checks them.
- ``ClientsPanel``: every client and its mounts as a tree.
"""

from .client_dialog import ClientDialog
from .clients_panel import ClientsPanel, run_client_dialog, run_mount_dialog
from .mount_dialog import MountDialog
from .options_editor import VolumeOptionsEditor

__all__ = ["ClientDialog", "ClientsPanel", "MountDialog", "VolumeOptionsEditor",
           "run_client_dialog", "run_mount_dialog"]
