"""Where a sampled message ends, with a tokenizer whose tokens can straddle a stop sequence."""

from __future__ import annotations

from toolenv.tokens import message_tokens


class PieceTokenizer:
    """Greedy longest-match over a fixed vocabulary; "><" is one token, as in SmolLM2's."""

    eos_token_id = 0
    pad_token_id = 1

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = ["<eos>", "<pad>", *pieces]

    def encode(self, text: str) -> list[int]:
        ids, at = [], 0
        while at < len(text):
            best = max(
                (i for i, p in enumerate(self.pieces) if i > 1 and text.startswith(p, at)),
                key=lambda i: len(self.pieces[i]),
            )
            ids.append(best)
            at += len(self.pieces[best])
        return ids

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        return "".join(self.pieces[i] for i in ids)

    def __call__(self, text: str, add_special_tokens: bool = False) -> dict[str, list[int]]:
        return {"input_ids": self.encode(text)}


TOKENIZER = PieceTokenizer(["</", "search_tool", ">", "<", "><", "tools", "query", " ", "\n"])


def test_a_token_straddling_the_stop_keeps_the_characters_before_it() -> None:
    row = TOKENIZER.encode("</search_tool><tools>query")
    tokens, text = message_tokens(TOKENIZER, row, ["<tools>"], room=64)
    assert text == "</search_tool>"
    assert TOKENIZER.decode(tokens) == text


def test_a_stop_on_a_token_boundary_cuts_there() -> None:
    row = TOKENIZER.encode("</search_tool>\n<tools>query")
    tokens, text = message_tokens(TOKENIZER, row, ["<tools>"], room=64)
    assert text == "</search_tool>\n"
    assert tokens == row[:4]


def test_the_end_token_is_kept_and_not_in_the_text() -> None:
    row = [*TOKENIZER.encode("</search_tool>"), TOKENIZER.eos_token_id, TOKENIZER.pad_token_id]
    tokens, text = message_tokens(TOKENIZER, row, ["<tools>"], room=64)
    assert tokens == row[:-1]
    assert text == "</search_tool>"
