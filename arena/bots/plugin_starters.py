"""Starters for a plugin game: ``arena new GAME LANGUAGE`` for a game Arena's starters know nothing of.

A built-in game's part of each starter is written by hand (``starters/``). A
plugin game's is made here, from the game itself: its message Structs (each
request's tag, docstring and fields, written as comments) and its rules. The
rules are played (random legal play, as ``arena check-game`` plays, no bot)
to find, for each kind of request, a rule of thumb that always answered it
legally: a constant (``"call"``), the first item of a list field (a card of
``hand``), or a field's value. That rule is the starter's answer, so the
starter plays legal moves as written and its author makes it play better.

Python, C and Go are made (:data:`PLUGIN_LANGUAGES`); each from the same
language's starter, its built-in games' parts replaced by the plugin's.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from protocol import Request

from .._errors import ConfigError
from ..games import Game, MatchState

PLUGIN_LANGUAGES = ("python", "c", "go")
"""The languages a plugin game's starter is made in."""
PLAYED = 60
"""Matches played (at the defaults, and as many at the smallest parameters) to find each request's answer."""
MAX_STEPS = 20_000
"""Steps played at most in all (a long game is sampled, not played through)."""


@dataclass(frozen=True)
class Answer:
    """How a starter answers one kind of request: ``const`` (a JSON value), ``first`` (of a list field), ``field``."""

    how: str
    value: Any = None
    """The constant (``const``), or the field's name."""
    kind: str = "int"
    """What the answer is: ``int`` or ``str`` (what the compiled starters write)."""

    def fits(self, fields: dict[str, Any]) -> Any:
        """The answer to a request with ``fields``; ``KeyError``/``IndexError``/``TypeError`` when there is none."""
        if self.how == "const":
            return self.value
        found = fields[self.value]
        return found[0] if self.how == "first" else found


@dataclass
class RequestKind:
    """One kind of request the game sends: its Struct, and the answer found for it (``None``: none always legal)."""

    cls: type[Request]
    answer: Answer | None = None

    @property
    def tag(self) -> str:
        return str(self.cls.__struct_config__.tag)

    @property
    def doc(self) -> str:
        return " ".join((self.cls.__doc__ or "").split())

    @property
    def fields(self) -> list[str]:
        return [f.encode_name for f in msgspec.structs.fields(self.cls) if f.encode_name != "id"]


def _kind_of(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "str"
    return None


def _candidates(fields: dict[str, Any], legal: list[Any]) -> Iterator[Answer]:
    for action in legal:
        kind = _kind_of(action)
        if kind is not None:
            yield Answer("const", action, kind)
    for name, value in fields.items():
        if name in ("type", "id"):
            continue
        if isinstance(value, list) and value and _kind_of(value[0]):
            yield Answer("first", name, _kind_of(value[0]) or "int")
        elif _kind_of(value):
            yield Answer("field", name, _kind_of(value) or "int")
    yield Answer("const", 0, "int")


def request_kinds(game: Game, games: list[Game]) -> list[RequestKind]:
    """Each request Struct ``game`` declares, with an answer that was legal at every request of it played."""
    kinds = {
        str(cls.__struct_config__.tag): RequestKind(cls)
        for cls in type(game).messages
        if isinstance(cls, type) and issubclass(cls, Request)
    }
    alive: dict[str, list[Answer]] = {}
    steps = 0
    chooser = random.Random(0)
    for each in games:
        for seed in range(PLAYED):
            state = each.new_match(seed)
            while not state.is_over and steps < MAX_STEPS:
                steps += 1
                actions = {}
                for seat, request in sorted(state.requests().items()):
                    legal = _legal(game, state, seat)
                    if not legal:
                        raise ConfigError(f"{game.id}: no legal answer found to a {request.__struct_config__.tag}")
                    _judge(state, seat, request, legal, alive)
                    actions[seat] = state.check(seat, chooser.choice(legal))
                state.apply(actions)
    for tag, answers in alive.items():
        if tag in kinds and answers:
            kinds[tag].answer = answers[0]
    return list(kinds.values())


def _legal(game: Game, state: MatchState, seat: int) -> list[Any]:
    try:
        return state.legal_actions(seat)
    except NotImplementedError:
        raise ConfigError(
            f"{game.id} does not list its legal actions (MatchState.legal_actions): a starter cannot be made for it"
        ) from None


def _judge(state: MatchState, seat: int, request: Request, legal: list[Any], alive: dict[str, list[Answer]]) -> None:
    """Keep, of the answers still in the running for this kind of request, those legal now."""
    tag = str(request.__struct_config__.tag)
    fields = msgspec.to_builtins(request)
    if tag not in alive:
        alive[tag] = list(dict.fromkeys(_candidates(fields, legal)))
    kept = []
    for answer in alive[tag]:
        try:
            state.check(seat, answer.fits(fields))
        except Exception:  # IllegalAction, or a field it cannot be taken from here
            continue
        kept.append(answer)
    alive[tag] = kept


# Each language's code for one kind of request --------------------------------------------------------------------


def _python(kind: RequestKind) -> list[str]:
    head = f'    if kind == "{kind.tag}":  # {kind.doc}'
    fields = f"        # fields: {', '.join(kind.fields)}"
    answer = kind.answer
    if answer is None:
        return [head, fields, f'        raise ValueError("answer {kind.tag} here: no simple answer was always legal")']
    if answer.how == "const":
        return [head, fields, f"        return {json.dumps(answer.value)}"]
    index = "[0]" if answer.how == "first" else ""
    return [head, fields, f'        return request["{answer.value}"]{index}']


def _go(kind: RequestKind) -> list[str]:
    head = f'\tcase "{kind.tag}": // {kind.doc}'
    fields = f"\t\t// fields: {', '.join(kind.fields)}"
    answer = kind.answer
    if answer is None:
        return [
            head,
            fields,
            f'\t\treturn nil, fmt.Errorf("answer {kind.tag} here: no simple answer was always legal")',
        ]
    if answer.how == "const":
        return [head, fields, f"\t\treturn {json.dumps(answer.value)}, nil"]
    if answer.how == "first":
        return [head, fields, f'\t\treturn request["{answer.value}"].([]any)[0], nil']
    return [head, fields, f'\t\treturn request["{answer.value}"], nil']


def _c(kind: RequestKind) -> list[str]:
    lines = [
        f'    if (is_type(line, "{kind.tag}")) {{ /* {kind.doc.replace("*/", "* /")}',
        f"         * fields: {', '.join(kind.fields)} */",
    ]
    answer = kind.answer
    if answer is None:
        return [*lines, "        return 0; /* no simple answer was always legal: answer it here */", "    }"]
    if answer.how == "const":
        text = json.dumps(answer.value).replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
        return [*lines, f'        snprintf(action, size, "{text}");', "        return 1;", "    }"]
    key = f'\\"{answer.value}\\":' + ("[" if answer.how == "first" else "")
    if answer.kind == "int":
        body = [f'        snprintf(action, size, "%ld", strtol(after(line, "{key}"), NULL, 10));']
    else:
        body = [
            f'        const char *text = after(line, "{key}\\"");',
            '        snprintf(action, size, "\\"%.*s\\"", (int)strcspn(text, "\\""), text);',
        ]
    return [*lines, *body, "        return 1;", "    }"]


CODE: dict[str, Callable[[RequestKind], list[str]]] = {"python": _python, "go": _go, "c": _c}


def for_plugin(
    text: str,
    language: str,
    kinds: list[RequestKind],
    *,
    is_begin: Callable[[str], object],
    is_end: Callable[[str], object],
) -> str:
    """A starter's source with its built-in games' parts replaced by the plugin game's, where the first part was."""
    out: list[str] = []
    inside = placed = False
    for line in text.splitlines(keepends=True):
        if is_begin(line):
            inside = True
            if not placed:
                placed = True
                out += [f"{code}\n" for kind in kinds for code in CODE[language](kind)]
        elif is_end(line):
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)


__all__ = ["PLUGIN_LANGUAGES", "Answer", "RequestKind", "for_plugin", "request_kinds"]
