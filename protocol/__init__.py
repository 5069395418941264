"""Arena's wire protocol: message Structs and the line codec (msgspec only).

The language-neutral specification is ``protocol/README.md``.
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
