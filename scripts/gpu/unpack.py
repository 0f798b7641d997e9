#!/usr/bin/env python3
"""Unpacks the parts of a GPU pack as they arrive (standard library only: it runs before anything is installed).

    python3 scripts/gpu/unpack.py --pack .toolenv-tmp/gpu-pack --stage .toolenv-tmp/gpu-stage

Each part-N.tar holds manifest.json and pieces of compressed items. Every part found is opened once (its pieces checked
against the manifest's sha256), every item whose pieces have all arrived is joined, checked, and decompressed into the
stage (an .xz file to one file, a .tar.xz to a folder), once. Parts may come in any order and over several commands:
the stage remembers what it holds. Prints one JSON line: the parts seen and missing, the items ready, and `ready`.
Exit status 0, or 1 when a part or item fails its check (it is set aside, not unpacked).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import os
import shutil
import sys
import tarfile
from pathlib import Path

CHUNK = 1 << 20


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as data:
        while block := data.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def safe_extract(archive: tarfile.TarFile, dest: Path) -> None:
    """Extracts regular files and folders only, never outside dest (the `data` filter where Python has it)."""
    if hasattr(tarfile, "data_filter"):
        archive.extractall(dest, filter="data")
        return
    root = dest.resolve()
    for member in archive.getmembers():
        target = (dest / member.name).resolve()
        if root not in target.parents and target != root or not (member.isfile() or member.isdir()):
            raise ValueError(f"refusing {member.name}")
    archive.extractall(dest)


def open_parts(pack: Path, stage: Path, incoming: Path, done: Path) -> tuple[dict, list[str]]:
    manifest = None
    failures = []
    for part in sorted(pack.glob("part-*.tar")):
        marker = done / f"{part.name}.done"
        if marker.exists():
            continue
        try:
            with tarfile.open(part) as archive:
                safe_extract(archive, incoming)
            manifest = json.loads((incoming / "manifest.json").read_text())
            for item in manifest["items"]:
                for piece in item["pieces"]:
                    if piece["part"] == part.name and sha256(incoming / piece["file"]) != piece["sha256"]:
                        raise ValueError(f"{piece['file']} does not match its sha256")
        except (OSError, ValueError, tarfile.TarError, KeyError) as error:
            failures.append(f"{part.name}: {error}")
            continue
        marker.write_text(json.dumps({"bytes": part.stat().st_size}) + "\n")
    if manifest is None and (incoming / "manifest.json").exists():
        manifest = json.loads((incoming / "manifest.json").read_text())
    return manifest or {}, failures


def unpack_item(item: dict, stage: Path, incoming: Path) -> None:
    joined = incoming / item["file"]
    with open(joined, "wb") as out:
        for piece in item["pieces"]:
            with open(incoming / piece["file"], "rb") as data:
                shutil.copyfileobj(data, out, CHUNK)
    if sha256(joined) != item["sha256"]:
        joined.unlink()
        raise ValueError(f"{item['file']}: joined pieces do not match its sha256")
    dest = stage / item["dest"]
    if item["file"].endswith(".tar.xz"):
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        with tarfile.open(joined, "r:xz") as archive:
            safe_extract(archive, dest)
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with lzma.open(joined) as data, open(dest, "wb") as out:
            shutil.copyfileobj(data, out, CHUNK)
        os.chmod(dest, int(item.get("mode", "644"), 8))
    joined.unlink()
    for piece in item["pieces"]:
        (incoming / piece["file"]).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pack", type=Path, required=True)
    parser.add_argument("--stage", type=Path, required=True)
    args = parser.parse_args(argv)
    incoming, done = args.stage / "incoming", args.stage / ".done"
    for path in (incoming, done):
        path.mkdir(parents=True, exist_ok=True)
    manifest, failures = open_parts(args.pack, args.stage, incoming, done)
    if not manifest:
        print(json.dumps({"ready": False, "error": f"no part-*.tar under {args.pack}", "failures": failures}))
        return 1
    (args.stage / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    parts = [p["name"] for p in manifest["parts"]]
    seen = [p for p in parts if (done / f"{p}.done").exists()]
    ready, waiting = [], []
    for item in manifest["items"]:
        marker = done / f"{item['name']}.item"
        if not marker.exists() and all((incoming / p["file"]).exists() for p in item["pieces"]):
            try:
                unpack_item(item, args.stage, incoming)
                marker.write_text(item["sha256"] + "\n")
            except (OSError, ValueError, tarfile.TarError, lzma.LZMAError) as error:
                failures.append(f"{item['name']}: {error}")
        (ready if marker.exists() else waiting).append(item["name"])
    status = {
        "ready": not waiting and not failures,
        "parts_seen": seen,
        "parts_missing": [p for p in parts if p not in seen],
        "items_ready": ready,
        "items_waiting": waiting,
        "failures": failures,
    }
    print(json.dumps(status))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
