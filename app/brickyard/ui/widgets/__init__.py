"""Pieces several tabs share: the chart kit (``chart``)."""
