"""A rules page whose JSON example is not what the game's Struct encodes (a key it does not have)."""

from kitbase import KitGame


class KitBadPage(KitGame):
    id = "kit-badpage"
