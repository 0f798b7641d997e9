"""`python -m toolenv.probe`: teacher-forced accuracy on conversations, copy tokens apart from the rest."""

import json
import random
import subprocess
import sys

from toolenv.tiny_model import write_tiny_model

_letters = random.Random(1)
WORDS = ["".join(_letters.choices("abcdefghijklmnopqrstuvwxyz", k=7)) for _ in range(3000)]


def test_the_probe_tells_copies_from_the_rest(tmp_path):
    corpus = [" ".join(WORDS[i : i + 12]) for i in range(0, len(WORDS), 12)]
    model = write_tiny_model(tmp_path / "small", corpus, seed=1, size="small", copy=True)["dir"]
    rows = []
    for _ in range(4):
        value = " ".join(_letters.sample(WORDS, 10))
        messages = [
            {"role": "user", "content": f"Remember {value} and say it back."},
            {"role": "assistant", "content": f"{value} {' '.join(_letters.sample(WORDS, 6))}"},
        ]
        rows.append(json.dumps({"messages": messages}))
    data = tmp_path / "conversations.jsonl"
    data.write_text("\n".join(rows) + "\n")
    run = subprocess.run(
        [sys.executable, "-m", "toolenv.probe", "--model", model, str(data)], capture_output=True, text=True, check=True
    )
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["conversations"] == 4
    assert report["copy"]["tokens"] > 0 and report["other"]["tokens"] > 0
    # The untrained wired model has only its circuit: it predicts the repeated words and nothing else.
    assert report["copy"]["accuracy"] > 0.5 > report["other"]["accuracy"]
    bad = subprocess.run(
        [sys.executable, "-m", "toolenv.probe", "--model", model, str(tmp_path / "none.jsonl")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode == 2 and "none.jsonl" in bad.stderr
