"""File ▸ Export PDF…: the report of what the tab in front shows (``report_export``); the
report itself is ``brickyard.report``."""
