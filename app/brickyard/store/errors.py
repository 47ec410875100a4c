"""The error every part of the history store raises for a request it cannot honour. Its own
module so that ``history`` and the stores beside it (``campaigns``, ``exchange``) can all
raise it without importing each other."""


class StoreError(ValueError):
    """A request the history cannot honour (unknown run, duplicate step, …)."""
