"""Line codec: one JSON value per line, UTF-8, terminated by ``\\n``."""

from __future__ import annotations

import inspect
import re
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


MAX_DEPTH = 32
"""Deepest nesting of arrays and objects read on a bot's line (an answer needs 3); deeper is a protocol error.

A fixed limit, well below Python's recursion limit, so that every line the
arena accepts can be decoded, logged and replayed anywhere.
"""


class AnswerError(ValueError):
    """A bot's line is not a valid answer; the text says what is wrong.

    ``malformed`` is true when the line is not JSON at all (an ``invalid_json``
    fault), false when it is JSON but not an answer (a ``protocol_error``).
    """

    def __init__(self, reason: str, *, malformed: bool) -> None:
        super().__init__(reason)
        self.malformed = malformed


_any_json = msgspec.json.Decoder()
_EXPECTED = 'expected {"id": <request id>, "action": ...}'


def read_json(line: bytes) -> Any:
    """The JSON value on ``line``; raises :class:`AnswerError` when there is none the arena reads."""
    _check_depth(line)
    try:
        return _any_json.decode(line)
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise _error(line, exc) from None


class AnswerDecoder:
    """Decodes the lines a bot writes. Build one per connection."""

    def __init__(self) -> None:
        self._decoder = msgspec.json.Decoder(messages.Answer)

    def decode(self, line: bytes) -> messages.Answer:
        """The answer on ``line``, or :class:`AnswerError` saying why not."""
        _check_depth(line)
        try:
            return self._decoder.decode(line)
        except msgspec.ValidationError as exc:
            # The shape is judged while parsing, so a line can fail on its shape before its syntax:
            # one that is not JSON at all is invalid JSON, whatever was wrong first.
            read_json(line)
            raise AnswerError(f"not an answer ({exc}): {_quote(line)}; {_EXPECTED}", malformed=False) from None
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            raise _error(line, exc) from None


def _quote(line: bytes) -> str:
    return repr(line[:80].decode("utf-8", "replace"))


def _error(line: bytes, exc: msgspec.DecodeError | UnicodeDecodeError) -> AnswerError:
    if isinstance(exc, msgspec.ValidationError):  # JSON, but a number too large to hold
        return AnswerError(f"not an answer ({exc}): {_quote(line)}; {_EXPECTED}", malformed=False)
    # A string that is not UTF-8: msgspec raised UnicodeDecodeError for it before 0.23, a DecodeError saying so since.
    not_utf8 = isinstance(exc, UnicodeDecodeError) or str(exc).startswith("Invalid UTF-8")
    why = f"not UTF-8 at byte {_not_utf8_at(line)}" if not_utf8 else _why_malformed(line, str(exc))
    return AnswerError(f"invalid JSON ({why}): {_quote(line)}", malformed=True)


def _not_utf8_at(line: bytes) -> int:
    """Where ``line`` stops being UTF-8 (msgspec's error counts from the start of the string it was in)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return 0


_BYTE_AT = re.compile(r"\(byte (\d+)\)")
_NOT_A_NUMBER = re.compile(rb"-?(?:NaN|Infinity)")
_LONE_SURROGATE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F]"
)


def _why_malformed(line: bytes, said: str) -> str:
    """What is wrong with a line that is not JSON, in words a bot's author can act on."""
    if not line.strip():
        return "an empty line"
    if line.startswith(b"\xef\xbb\xbf"):
        return "it starts with a byte-order mark"
    if ("truncated" in said or "surrogate" in said) and _LONE_SURROGATE.search(line):
        return "a lone UTF-16 surrogate escape, which is not Unicode"
    at = _BYTE_AT.search(said)
    if at is not None:
        offset = int(at.group(1))
        if _NOT_A_NUMBER.match(line, max(offset - 1, 0)) or _NOT_A_NUMBER.match(line, offset):
            return "NaN and Infinity are not JSON numbers"
        if 0 <= offset < len(line):
            byte = line[offset]
            if byte < 0x20:
                return f"control character {byte:#04x} at byte {offset}"
            shown = repr(chr(byte)) if byte < 0x7F else f"byte {byte:#04x}"
            return f"unexpected {shown} at byte {offset}"
    if "truncated" in said:
        return "the line ends inside a JSON value"
    return said.removeprefix("JSON is malformed: ")


_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_PAIR = re.compile(rb"\[\]|\{\}")


def _check_depth(line: bytes) -> None:
    """Refuse a line nested deeper than :data:`MAX_DEPTH`, before a parser recurses into it.

    Two scans in C for any line with few brackets (every real answer); the
    rest is measured in linear passes, one per level, never recursing.
    """
    if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return
    # Escapes go first, so every quote left opens or closes a string; brackets inside strings do not nest.
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", _ESCAPE.sub(b"", line)))
    for _ in range(MAX_DEPTH):
        brackets, found = _PAIR.subn(b"", brackets)
        if not brackets:
            return
        if not found:
            raise AnswerError(f"invalid JSON (its brackets do not balance): {_quote(line)}", malformed=True)
    raise AnswerError(f"nested deeper than {MAX_DEPTH} levels: {_quote(line)}", malformed=False)


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
    ordered = sorted(set(found), key=lambda c: (not _own(c), c.__module__, str(c.__struct_config__.tag)))
    # One type a tag: a plugin game's file loaded twice (under two module names) defines its messages twice, and a
    # union of two Structs with one tag cannot decode. Arena's own types come first, so a plugin never shadows them.
    by_tag: dict[str, type[messages.Message]] = {}
    for cls in ordered:
        by_tag.setdefault(str(cls.__struct_config__.tag), cls)
    return sorted(by_tag.values(), key=lambda c: (c.__module__, str(c.__struct_config__.tag)))


def _own(cls: type) -> bool:
    """Whether ``cls`` is one of this package's message types (not a plugin game's)."""
    return cls.__module__.partition(".")[0] == __name__.partition(".")[0]


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
    types = [cls for cls in message_types() if _own(cls)]  # the protocol's own (a plugin's are its own to document)
    (refs, answer_ref), components = msgspec.json.schema_components(
        [Union[tuple(types)], messages.Answer],  # noqa: UP007
        ref_template="#/$defs/{name}",
    )
    for component in components.values():  # docstrings as msgspec >= 0.23 writes them, whichever version runs
        _clean_descriptions(component)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Arena wire protocol",
        "description": (
            "Lines sent to a bot (ToBot) and the line a bot sends back (Answer). "
            "A message with an 'id' key is a request and gets exactly one Answer with that id."
        ),
        "$defs": {"ToBot": refs, "Answer": answer_ref, **components},
    }


def _clean_descriptions(schema: Any) -> None:
    """Every ``description`` in ``schema`` with its docstring's indentation taken out (``inspect.cleandoc``)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "description" and isinstance(value, str):
                schema[key] = inspect.cleandoc(value)
            else:
                _clean_descriptions(value)
    elif isinstance(schema, list):
        for item in schema:
            _clean_descriptions(item)
