"""Reaching and changing the cluster: the Pre-flight and Provision tabs (``preflight_view``,
``provision_view``, and what they share: ``runtable``), Import from a running pool
(``import_dialog``), Teardown (``teardown_dialog``), host keys (``hostkey_dialog``) and
Connection settings (``connection_dialog``)."""
