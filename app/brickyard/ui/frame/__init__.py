"""The window's frame: the main window and its menus (``mainwindow``), the bridge from the
asyncio loop thread to Qt (``bridge``), the open topology (``session``), files and autosave
(``files``), the window's size and docks (``window_state``), Help (``help``, the user guide:
``guide``, ``guide_text``; ``welcome``, ``about``), the crash dialog (``crash``), start-up
(``app``, ``profile``, ``collector``) and ``--self-test`` (``selftest``)."""
