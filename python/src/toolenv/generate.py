"""A Hugging Face checkpoint as a ParaAct policy for `toolenv eval --policy hf:DIR`: a worker that generates the next
assistant message of many conversations at once with transformers, under the same token budgets training used.

It speaks JSON Lines on stdin/stdout. The first line out is `{"ready": true, ...}`; then each request
`{"id", "messages", "max_tokens", "stop"}` is answered by `{"id", "text", "prompt_tokens", "completion_tokens"}` or
`{"id", "error"}`. Requests that arrive together are generated as one left-padded batch. Decoding is greedy unless
`--temperature` is above 0, so an evaluation does not depend on how its requests were batched.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
from typing import Any

from toolenv import attention
from toolenv.tokens import chat_ids, message_tokens

# How long a batch waits for more requests after its first: the eval client sends a turn's requests in a burst.
GATHER_SECONDS = 0.02


class Generator:
    """The model and tokenizer, and one batched generation step."""

    def __init__(self, model_dir: str, *, max_seq_len: int, temperature: float, seed: int) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.manual_seed(seed)
        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModelForCausalLM.from_pretrained(model_dir, attn_implementation=attention.implementation())
        # A checkpoint evaluated on a GPU machine generates there (the same code as on a CPU, the tensors moved).
        self.model.to("cuda" if torch.cuda.is_available() else "cpu")
        self.model.eval()
        self.max_seq_len = max_seq_len
        self.temperature = temperature
        self.parameters = sum(p.numel() for p in self.model.parameters())

    def generate(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        tokenizer = self.tokenizer
        answers: list[dict[str, Any]] = []
        prompts: list[tuple[dict[str, Any], list[int]]] = []
        for request in requests:
            # A chat episode's functions, for templates that render tools (others leave them out).
            rendered = tokenizer.apply_chat_template(
                request["messages"], tools=request.get("tools") or None, tokenize=True, add_generation_prompt=True
            )
            ids = chat_ids(rendered)
            if len(ids) >= self.max_seq_len:
                # Training stops a rollout whose sequence is full; evaluation fails the run the same way.
                why = f"the conversation outgrew --max-seq-len {self.max_seq_len}"
                answers.append({"id": request["id"], "error": why})
            else:
                prompts.append((request, ids))
        if not prompts:
            return answers
        width = max(len(ids) for _, ids in prompts)
        room = min(max(r["max_tokens"] for r, _ in prompts), self.max_seq_len - min(len(ids) for _, ids in prompts))
        pad = tokenizer.pad_token_id
        torch = self.torch
        device = self.model.device
        input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for _, ids in prompts], device=device)
        attention = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for _, ids in prompts], device=device)
        stop = sorted({s for r, _ in prompts for s in r.get("stop") or []})
        greedy = self.temperature <= 0
        sampling = {"do_sample": False} if greedy else {"do_sample": True, "temperature": self.temperature}
        with torch.no_grad():
            out = self.model.generate(
                input_ids=input_ids,
                attention_mask=attention,
                max_new_tokens=room,
                stop_strings=stop or None,
                tokenizer=tokenizer,
                pad_token_id=pad,
                eos_token_id=tokenizer.eos_token_id,
                use_cache=True,
                **sampling,
            )
        for (request, ids), row in zip(prompts, out[:, width:].tolist(), strict=True):
            budget = min(request["max_tokens"], self.max_seq_len - len(ids))
            kept, text = message_tokens(tokenizer, row, stop, budget)
            answers.append(
                {"id": request["id"], "text": text, "prompt_tokens": len(ids), "completion_tokens": len(kept)}
            )
        return answers


def _read(lines: queue.Queue) -> None:
    for line in sys.stdin:
        if line.strip():
            lines.put(line)
    lines.put(None)


def serve(generator: Generator, batch: int) -> None:
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_read, args=(lines,), daemon=True).start()
    while True:
        first = lines.get()
        if first is None:
            return
        pending = [first]
        ended = False
        try:
            while len(pending) < batch:
                more = lines.get(timeout=GATHER_SECONDS)
                if more is None:
                    ended = True
                    break
                pending.append(more)
        except queue.Empty:
            pass
        requests = []
        for line in pending:
            try:
                request = json.loads(line)
                requests.append({"max_tokens": 512, **request})
            except json.JSONDecodeError as error:
                print(json.dumps({"id": None, "error": f"not JSON: {error}"}), flush=True)
        try:
            answers = generator.generate(requests)
        except Exception as error:  # noqa: BLE001 — every request of the batch gets the reason, the worker goes on
            answers = [{"id": r.get("id"), "error": f"{type(error).__name__}: {error}"} for r in requests]
        for answer in answers:
            print(json.dumps(answer), flush=True)
        if ended:
            return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolenv.generate", description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--max-seq-len", type=int, default=4096)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    args = parser.parse_args(argv)
    if args.threads > 0:
        import torch

        torch.set_num_threads(args.threads)
    generator = Generator(args.model, max_seq_len=args.max_seq_len, temperature=args.temperature, seed=args.seed)
    ready = {"ready": True, "model": args.model, "parameters": generator.parameters, "max_seq_len": args.max_seq_len}
    print(json.dumps(ready), flush=True)
    serve(generator, args.batch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
