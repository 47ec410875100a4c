"""Brickyard: plan, provision and benchmark GlusterFS volumes."""

__version__ = "0.1.0"
