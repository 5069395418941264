"""Never ends: the rounds go on past the five the game declares."""

from kitbase import KitGame, KitMatch


class EndlessMatch(KitMatch):
    @property
    def is_over(self) -> bool:
        return False


class KitEndless(KitGame):
    id = "kit-endless"
    match = EndlessMatch
