#!/usr/bin/env python3
"""Cuts a GPU pack's compressed items into parts of at most --capacity bytes each (standard library only).

    python3 scripts/gpu/parts.py --spec SPEC.json --out DIR [--capacity 67108864]

SPEC: {"items": [{"name", "file" (a path), "dest" (under the stage), "mode"?}, ...], "meta": {...}}. The items are laid
end to end in the order given and cut where a part is full, so the parts are as few as the bytes allow and an item may
span two; each part-N.tar holds its pieces and manifest.json (every item's pieces, sizes and sha256, and `meta`), so
`scripts/gpu/unpack.py` can check and join them whatever order they arrive in. Writes PARTS.txt (sizes and sha256 of
every part) and prints it.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import tarfile
from pathlib import Path

MIB = 1 << 20
# Room left in a part for the tar headers, the end blocks and manifest.json.
RESERVE = 256 * 1024


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as data:
        while block := data.read(MIB):
            digest.update(block)
    return digest.hexdigest()


def plan_pieces(sizes: list[int], room: int) -> list[list[tuple[int, int, int]]]:
    """Per item, its pieces as (part index, offset, length): the items end to end, cut every `room` bytes."""
    pieces: list[list[tuple[int, int, int]]] = []
    part, used = 0, 0
    for size in sizes:
        if size <= 0:
            raise ValueError("an empty item")
        own = []
        offset = 0
        while offset < size:
            if used == room:
                part, used = part + 1, 0
            length = min(size - offset, room - used)
            own.append((part, offset, length))
            offset += length
            used += length
        pieces.append(own)
    return pieces


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--capacity", type=int, default=64 * MIB)
    args = parser.parse_args(argv)
    spec = json.loads(args.spec.read_text())
    items = spec["items"]
    files = [Path(item["file"]) for item in items]
    sizes = [f.stat().st_size for f in files]
    layout = plan_pieces(sizes, args.capacity - RESERVE)
    count = max(p for pieces in layout for p, _, _ in pieces) + 1
    names = [f"part-{i + 1}.tar" for i in range(count)]
    manifest = {"format": 1, "meta": spec.get("meta", {}), "parts": [{"name": n} for n in names], "items": []}
    payload: list[list[tuple[str, bytes]]] = [[] for _ in range(count)]
    for item, path, size, pieces in zip(items, files, sizes, layout, strict=True):
        entry = {
            "name": item["name"],
            "file": path.name,
            "dest": item["dest"],
            "bytes": size,
            "sha256": sha256_file(path),
            "pieces": [],
        }
        if "mode" in item:
            entry["mode"] = item["mode"]
        with open(path, "rb") as data:
            for n, (part, offset, length) in enumerate(pieces):
                data.seek(offset)
                chunk = data.read(length)
                piece = f"{path.name}.{n:03d}"
                entry["pieces"].append(
                    {"part": names[part], "file": piece, "bytes": length, "sha256": sha256_bytes(chunk)}
                )
                payload[part].append((piece, chunk))
        manifest["items"].append(entry)
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("part-*.tar"):
        old.unlink()
    lines = []
    text = json.dumps(manifest, indent=2).encode()
    for name, members in zip(names, payload, strict=True):
        target = args.out / name
        with tarfile.open(target, "w", format=tarfile.PAX_FORMAT) as archive:
            for member_name, data in [("manifest.json", text), *members]:
                info = tarfile.TarInfo(member_name)
                info.size = len(data)
                info.mode = 0o644
                archive.addfile(info, io.BytesIO(data))
        size = target.stat().st_size
        if size > args.capacity:
            raise SystemExit(f"parts.py: {name} is {size} bytes, over the {args.capacity} allowed")
        held = ", ".join(m for m, _ in members)
        lines.append(f"{name}  {size:>10} bytes  {size / MIB:6.2f} MiB  sha256 {sha256_file(target)}  [{held}]")
    (args.out / "manifest.json").write_bytes(text)
    (args.out / "PARTS.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
