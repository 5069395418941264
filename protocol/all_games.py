"""Imports the messages of every game so that decoders and the schema see them."""

from . import gops, rps_poker  # noqa: F401
