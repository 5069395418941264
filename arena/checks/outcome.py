"""One check's outcome, a ``PASS``/``FAIL``/``SKIP`` line: the bot checks' and the game kit's.

Apart from :mod:`arena.checks.bot` (which imports trio and the sandbox to run bots), so ``arena check-game`` and a
game's own tests import only the games and the kit.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Check:
    """One check's outcome: ``passed`` is None when it was skipped."""

    name: str
    passed: bool | None
    detail: str
    where: list[str] = field(default_factory=list)
    took_s: float | None = None
    """What it timed, where it timed something (the first answer's wait, for the start-up check)."""
    machine_may_explain: bool = False
    """A failure a busy machine could explain: a wall-clock timeout while the bot was runnable (wanting a CPU)."""

    def lines(self) -> list[str]:
        """The PASS/FAIL/SKIP line and, for a failure, where it went wrong."""
        word = "SKIP" if self.passed is None else "PASS" if self.passed else "FAIL"
        return [f"{word}  {self.name}: {self.detail}", *("      " + line for line in self.where)]
