import difflib
import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("regen_golden", REPO / "scripts" / "regen_golden.py")
assert _spec is not None and _spec.loader is not None
regen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regen)


@pytest.mark.parametrize("name", sorted(regen.CASES))
def test_golden_transcript(name: str) -> None:
    expected = (regen.GOLDEN / name).read_text(encoding="utf-8")
    found = regen.transcript(*regen.CASES[name])
    if found != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), found.splitlines(True), "golden", "now", n=1))
        pytest.fail(f"transcript changed (if on purpose: python scripts/regen_golden.py):\n{diff[:4000]}")
