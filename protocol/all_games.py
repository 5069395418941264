"""Imports the messages of every game so that decoders and the schema see them."""

from . import rps_poker  # noqa: F401
