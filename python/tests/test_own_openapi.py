"""ToolEnv's own /openapi.json held to the server: Schemathesis with every check on a real server.

Every operation gets a bounded number of generated requests (valid and invalid ones, then stateful sequences along
the links it infers); any failed check fails the test. fixtures/schemathesis.toml says what no schema can (the
body limit in bytes, a few operations' acceptance rules), each with why, and gives the fixture library's names.
The seed is fixed, so a failure replays.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import serving

CONFIG = Path(__file__).parent / "fixtures" / "schemathesis.toml"
SEED = 1
EXAMPLES = 10


def test_own_document_passes_every_schemathesis_check(library: Path, tmp_path: Path) -> None:
    cli = Path(sys.executable).parent / "schemathesis"
    with serving(library, tmp_path / "cache.db", "--error-rate", "0") as url:
        run = subprocess.run(
            [
                str(cli), "--config-file", str(CONFIG), "--no-color", "run", f"{url}/openapi.json", "--checks", "all",
                "--seed", str(SEED), "--max-examples", str(EXAMPLES), "--workers", "1",
            ],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,  # its caches stay out of the checkout
        )  # fmt: skip
    assert run.returncode == 0, run.stdout[-12000:] + run.stderr[-3000:]
