"""How pages write numbers (the templates' ``num`` filter, and the rows a page writes in Python)."""

from __future__ import annotations

import math
from typing import Any


def num(value: Any, digits: int = 1) -> str:
    """``value`` with ``digits`` decimals (a whole float with none at 0), ``-`` for none or NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float) and value.is_integer() and digits == 0:
        return str(int(value))
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)
