"""``python -m protocol``: print the JSON Schema; ``--write`` updates ``protocol/schema.json``."""

import json
import sys
from pathlib import Path

from . import json_schema

text = json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
if sys.argv[1:] == ["--write"]:
    Path(__file__).with_name("schema.json").write_text(text, encoding="utf-8")
else:
    sys.stdout.write(text)
