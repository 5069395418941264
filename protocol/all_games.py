"""Imports the messages of every game so that decoders and the schema see them."""

from . import badugi, card_jitsu, gops, rps_poker, six_card_poker  # noqa: F401
