"""Every window of Brickyard, one folder per tab and workflow; nothing lies loose here (a new
view or dialog goes into the folder of the tab or workflow it serves):

- ``frame/``     the main window, its menus and Help (the user guide, welcome, about), the bridge from the
                 asyncio loop thread to Qt, the open topology (session), files and autosave, start-up and
                 --self-test
- ``planner/``   the Planner tab: the canvas, the docks beside it (panels/), the editors it opens, the
                 calibration of its throughput model
- ``cluster/``   reaching and changing the cluster: pre-flight, provision, import, teardown, host keys,
                 connection settings
- ``run/``       the Run tab
- ``campaign/``  the Campaign tab and the decision table
- ``history/``   the History tab
- ``change/``    the Change tab: a change to a live volume (day two)
- ``report/``    File ▸ Export PDF…
- ``widgets/``   what several tabs share: the chart kit, colours and icons (style)
"""
