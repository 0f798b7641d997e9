"""Token plumbing both engines share: where a sampled message ends, and the tokens of the environment's turn."""

from __future__ import annotations

from typing import Any


class EnvTurns:
    """Tokens of what the environment adds between two assistant messages, cut from the model's own chat template."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        mark = "\u2063"
        base = [{"role": "user", "content": "u"}, {"role": "assistant", "content": mark}]
        closed = tokenizer.apply_chat_template(base, tokenize=False)
        # What the template writes after an assistant message's content: its end-of-turn text.
        self.assistant_end = closed[closed.rindex(mark) + len(mark) :]
        self._base = closed
        self._probe = base

    def after_assistant(self, observation: str, *, ended_by_eos: bool) -> list[int]:
        """Closes the assistant turn (unless the model did), then the user turn holding the observation, then the
        next assistant header."""
        opened = self.tokenizer.apply_chat_template(
            [*self._probe, {"role": "user", "content": observation}], tokenize=False, add_generation_prompt=True
        )
        if not opened.startswith(self._base):
            raise ValueError("the chat template renders earlier turns differently once a turn follows; use another")
        text = opened[len(self._base) :]
        end = self.assistant_end
        eos = self.tokenizer.eos_token or ""
        if ended_by_eos and eos and end.startswith(eos):
            end = end[len(eos) :]
        elif ended_by_eos:
            end = ""
        return self.tokenizer(end + text, add_special_tokens=False)["input_ids"]


def chat_ids(rendered: Any) -> list[int]:
    # transformers 5 answers a BatchEncoding from apply_chat_template(tokenize=True), 4 a plain list.
    return list(rendered["input_ids"]) if hasattr(rendered, "keys") else list(rendered)


def message_tokens(tokenizer: Any, row: list[int], stop: list[str], room: int) -> tuple[list[int], str]:
    """The sampled tokens that form the message: up to the end token (kept, so the model learns to stop) or up to
    the first stop sequence (cut: the environment writes observations), and the message's text."""
    tokens: list[int] = []
    for token in row[:room]:
        if token == tokenizer.pad_token_id and token != tokenizer.eos_token_id:
            break
        tokens.append(token)
        if token == tokenizer.eos_token_id:
            break
    text_tokens = tokens[:-1] if tokens and tokens[-1] == tokenizer.eos_token_id else tokens
    text = tokenizer.decode(text_tokens, skip_special_tokens=False)
    cut = min((i for i in (text.find(s) for s in stop) if i >= 0), default=-1)
    if cut < 0:
        return tokens, text
    # Keep the longest token prefix whose text stops before the stop sequence. A token can straddle it (SmolLM2
    # writes "</search_tool><tools>" with one "><" token): the characters it holds before the stop are tokenized
    # again, so the message keeps its closing ">" and the tokens still spell exactly the text the server reads.
    keep = len(text_tokens)
    while keep > 0 and len(tokenizer.decode(text_tokens[:keep], skip_special_tokens=False)) > cut:
        keep -= 1
    kept = text_tokens[:keep]
    head = tokenizer.decode(kept, skip_special_tokens=False)
    if len(head) < cut:
        kept = kept + tokenizer(text[len(head) : cut], add_special_tokens=False)["input_ids"]
    return kept, text[:cut]
