"""Line codec: one JSON value per line, UTF-8, terminated by ``\\n``."""

from __future__ import annotations

import json
from typing import Any, Union

import msgspec

from . import messages

_encoder = msgspec.json.Encoder()


def encode(message: msgspec.Struct) -> bytes:
    """One message as the line (with its ``\\n``) that goes down the pipe."""
    return _encoder.encode(message) + b"\n"


def to_builtins(message: msgspec.Struct) -> Any:
    """A message as plain dicts and lists, for logs."""
    return msgspec.to_builtins(message)


class AnswerError(ValueError):
    """A bot's line is not a valid answer; the text says what is wrong."""


class AnswerDecoder:
    """Decodes the lines a bot writes. Build one per connection."""

    def __init__(self) -> None:
        self._decoder = msgspec.json.Decoder(messages.Answer)

    def decode(self, line: bytes) -> messages.Answer:
        """The answer on ``line``, or :class:`AnswerError` saying why not."""
        try:
            return self._decoder.decode(line)
        except msgspec.DecodeError as exc:
            raise AnswerError(_describe(line, exc)) from None


def _describe(line: bytes, exc: msgspec.DecodeError) -> str:
    text = line[:80].decode("utf-8", "replace")
    try:
        json.loads(line)
    except ValueError:
        return f"invalid JSON: {text!r}"
    return f'not an answer ({exc}): {text!r}; expected {{"id": <request id>, "action": ...}}'


def message_types() -> list[type[messages.Message]]:
    """Every concrete message type sent to bots, of every game, in a stable order."""
    from . import all_games  # noqa: F401  (imports each game's messages)

    found: list[type[messages.Message]] = []

    def walk(cls: type[messages.Message]) -> None:
        for sub in cls.__subclasses__():
            if sub.__struct_config__.tag is not None and isinstance(sub.__struct_config__.tag, str):
                found.append(sub)
            walk(sub)

    walk(messages.Message)
    return sorted(set(found), key=lambda c: (c.__module__, str(c.__struct_config__.tag)))


class MessageDecoder:
    """Decodes lines sent to a bot into message Structs (for Python bots, logs, replay)."""

    def __init__(self) -> None:
        union = Union[tuple(message_types())]  # type: ignore[valid-type]  # noqa: UP007
        self._decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(union)

    def decode(self, line: bytes | str) -> messages.Message:
        """The message on ``line``; raises ``msgspec.DecodeError`` when it is not one."""
        message: messages.Message = self._decoder.decode(line)
        return message


def json_schema() -> dict[str, Any]:
    """The JSON Schema of every message to a bot and of a bot's answer."""
    types = message_types()
    (refs, answer_ref), components = msgspec.json.schema_components(
        [Union[tuple(types)], messages.Answer],  # noqa: UP007
        ref_template="#/$defs/{name}",
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Arena wire protocol",
        "description": (
            "Lines sent to a bot (ToBot) and the line a bot sends back (Answer). "
            "A message with an 'id' key is a request and gets exactly one Answer with that id."
        ),
        "$defs": {"ToBot": refs, "Answer": answer_ref, **components},
    }
