"""Build the packaged card database from `data/creatures.jsonl.gz` (see data/README.md).

The packaged form is one gzipped JSON object of columns (one list per field), which loads in a
single `json.loads`: ``python tools/build_card_data.py``.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "data" / "creatures.jsonl.gz"
TARGET = ROOT / "ecs_combat" / "cards" / "data" / "creatures.json.gz"
FIELDS = (
    "name", "mana_cost", "mana_value", "colors", "type_line", "power", "toughness",
    "text", "set", "released", "funny",
)  # fmt: skip


def columns(source: Path = SOURCE) -> dict[str, list[object]]:
    """The source file's cards as columns, in name order; colors as a string of WUBRG letters."""
    with gzip.open(source, "rt", encoding="utf-8") as f:
        rows = sorted((json.loads(line) for line in f if line.strip()), key=lambda r: r["name"])
    out: dict[str, list[object]] = {name: [] for name in FIELDS}
    for row in rows:
        for name in FIELDS:
            value = row[name]
            if name == "colors":
                value = "".join(value)
            elif name == "mana_value":
                value = int(value) if float(value).is_integer() else value
            out[name].append(value)
    return out


def main() -> None:
    data = json.dumps(columns(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(TARGET, "wb", mtime=0) as f:  # mtime=0: the same bytes on every build
        f.write(data)
    print(f"{TARGET.relative_to(ROOT)}: {TARGET.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
