"""How much of a demonstration a checkpoint predicts, read teacher-forced: `python -m toolenv.probe --model DIR FILE`.

The learning benchmark's held-out scores stay at zero until a policy gets a whole episode right; this shows the
progress before that. Over conversations (`sft.jsonl`, one `{"messages": [...]}` a line), every assistant token is
predicted from the true prefix and counted as a **copy** when the pair (previous token, token) already occurred
earlier in the conversation (what an induction head can predict: a tool id out of `<tools>`, a value out of the task),
else as **other** (the protocol's templates, the words a policy must choose). Prints one JSON line:
`{"conversations", "copy": {"tokens", "accuracy"}, "other": {"tokens", "accuracy"}, "accuracy"}`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toolenv import attention
from toolenv.tokens import chat_ids


def assistant_mask(tokenizer, messages: list[dict]) -> tuple[list[int], list[int]]:
    """The conversation's token ids and a 0/1 mask of its assistant tokens (the chat template's generation spans)."""
    rendered = tokenizer.apply_chat_template(
        messages, tokenize=True, return_dict=True, return_assistant_tokens_mask=True
    )
    return chat_ids(rendered["input_ids"]), list(rendered["assistant_masks"])


def probe(model_dir: str, conversations: list[list[dict]], *, max_seq_len: int = 4096) -> dict:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, attn_implementation=attention.implementation())
    model.to("cuda" if torch.cuda.is_available() else "cpu")
    model.eval()
    right = {"copy": 0, "other": 0}
    total = {"copy": 0, "other": 0}
    for messages in conversations:
        ids, mask = assistant_mask(tokenizer, messages)
        ids, mask = ids[:max_seq_len], mask[:max_seq_len]
        with torch.no_grad():
            predicted = model(input_ids=torch.tensor([ids], device=model.device)).logits[0].argmax(-1).tolist()
        seen: set[tuple[int, int]] = set()
        for t in range(1, len(ids)):
            pair = (ids[t - 1], ids[t])
            if mask[t]:
                kind = "copy" if pair in seen else "other"
                total[kind] += 1
                right[kind] += predicted[t - 1] == ids[t]
            seen.add(pair)

    def share(kind: str) -> float | None:
        return round(right[kind] / total[kind], 4) if total[kind] else None

    tokens = total["copy"] + total["other"]
    return {
        "conversations": len(conversations),
        "copy": {"tokens": total["copy"], "accuracy": share("copy")},
        "other": {"tokens": total["other"], "accuracy": share("other")},
        "accuracy": round((right["copy"] + right["other"]) / tokens, 4) if tokens else None,
    }


def read_conversations(path: Path) -> list[list[dict]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        messages = json.loads(line).get("messages")
        if not isinstance(messages, list):
            raise ValueError(f"{path}:{number}: a line needs a messages list")
        rows.append([{"role": m["role"], "content": m["content"]} for m in messages])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolenv.probe", description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--max-seq-len", type=int, default=4096)
    parser.add_argument("conversations", type=Path)
    args = parser.parse_args(argv)
    try:
        conversations = read_conversations(args.conversations)
    except (OSError, ValueError) as error:
        print(f"toolenv: {error}", file=sys.stderr)
        return 2
    print(json.dumps(probe(args.model, conversations, max_seq_len=args.max_seq_len)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
