"""Raises on a bad answer: it converts the answer with int() instead of refusing what is not 0 or 1."""

from typing import Any

from kitbase import KitGame, KitMatch

from arena.games import IllegalAction


class RaisingMatch(KitMatch):
    def check(self, seat: int, action: Any) -> int:
        value = int(action)  # a list, None or "?" raises TypeError or ValueError, not IllegalAction
        if seat != self.to_act or value not in (0, 1):
            raise IllegalAction(f"answer 0 or 1, not {action!r}")
        return value


class KitRaise(KitGame):
    id = "kit-raise"
    match = RaisingMatch
