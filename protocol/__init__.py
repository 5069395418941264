"""Arena's wire protocol: message Structs and the line codec (msgspec only).

The language-neutral specification is ``protocol/README.md``.

* :mod:`~protocol.messages`: the messages every game shares (framing, answers, limits, results);
* :mod:`~protocol.codec`: one JSON value per line;
* each game's messages: :mod:`~protocol.rps_poker`, :mod:`~protocol.gops`,
  :mod:`~protocol.badugi`, :mod:`~protocol.card_jitsu`,
  :mod:`~protocol.six_card_poker`; :mod:`~protocol.all_games` imports them all;
* :mod:`~protocol.__main__`: ``python -m protocol`` prints (``--write``: updates) the JSON Schema.
"""

from .codec import MAX_DEPTH, AnswerDecoder, AnswerError, MessageDecoder, encode, json_schema, read_json, to_builtins
from .messages import (
    SEATS,
    Answer,
    Limits,
    MatchEnd,
    MatchStart,
    Message,
    Notice,
    Quit,
    Request,
    Result,
    Seat,
)

PROTOCOL_VERSION = 1
"""Changes when the framing (not a game's messages) changes incompatibly."""

__all__ = [
    "MAX_DEPTH",
    "PROTOCOL_VERSION",
    "SEATS",
    "Answer",
    "AnswerDecoder",
    "AnswerError",
    "Limits",
    "MatchEnd",
    "MatchStart",
    "Message",
    "MessageDecoder",
    "Notice",
    "Quit",
    "Request",
    "Result",
    "Seat",
    "encode",
    "json_schema",
    "read_json",
    "to_builtins",
]
