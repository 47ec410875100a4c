"""The Planner tab: the canvas the topology is drawn on (``canvas/``), the docks beside it
(``panels/``: layout, verdict, inspector, commands, compare), the editors it opens
(``editors/``: clients, mounts, volume options) and Cluster ▸ Calibrate throughput model
(``calibrate_dialog``), whose fit the planner's figures use."""
