import json

import pytest
import torch
from conftest import MAX_TURNS
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOTrainer, SFTTrainer

from toolenv import ToolEnvClient
from toolenv.records import RecordWriter
from toolenv.trl import (
    REWARD_FUNCS,
    REWARD_WEIGHTS,
    EpisodeOptions,
    ToolEnvRollout,
    cpu_has_bf16,
    grpo_config,
    lora_config,
    rl_dataset,
    sft_config,
    sft_dataset,
)


def _weights(model) -> dict[str, torch.Tensor]:
    return {name: p.detach().clone() for name, p in model.named_parameters()}


def _changed(before: dict[str, torch.Tensor], model) -> bool:
    return any(not torch.equal(before[name], p.detach()) for name, p in model.named_parameters())


def test_sft_puts_the_loss_on_assistant_tokens_only(tiny_model, short_data, tmp_path):
    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    dataset = sft_dataset(str(short_data))
    args = sft_config(str(tmp_path), max_steps=1, per_device_train_batch_size=2, learning_rate=1e-3, logging_steps=1)
    # SFT's one conversation per forward pass fits a CPU's memory without recomputed activations; GRPO's batch of
    # every rollout of a step does not.
    assert args.gradient_checkpointing == torch.cuda.is_available()
    assert grpo_config(str(tmp_path)).gradient_checkpointing
    # bf16 autocast wherever the hardware multiplies it natively, full precision elsewhere.
    assert args.bf16 == (torch.cuda.is_bf16_supported() if torch.cuda.is_available() else cpu_has_bf16())
    trainer = SFTTrainer(model=str(tiny_model), args=args, train_dataset=dataset, processing_class=tokenizer)
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(2)])
    for row in range(2):
        trained = batch["input_ids"][row][batch["labels"][row] != -100].tolist()
        assistant = [m["content"] for m in dataset[row]["messages"] if m["role"] == "assistant"]
        assert tokenizer.decode(trained) == "".join(text + "<|im_end|>" for text in assistant)
    before = _weights(trainer.model)
    trainer.train()
    assert _changed(before, trainer.model)


def _advantages_of(components: list[list[float]], group: int) -> torch.Tensor:
    """TRL's normalize_then_sum: each reward standardized in its group, weighted, summed, then over the batch."""
    rewards = torch.tensor(components).view(-1, group, len(REWARD_WEIGHTS))
    normalized = (rewards - rewards.mean(dim=1, keepdim=True)) / (rewards.std(dim=1, keepdim=True) + 1e-4)
    summed = (normalized.view(-1, len(REWARD_WEIGHTS)) * torch.tensor(REWARD_WEIGHTS)).sum(dim=1)
    return (summed - summed.mean()) / (summed.std() + 1e-4)


def test_bf16_on_a_cpu_only_where_it_multiplies_bf16_natively(tmp_path):
    def flags(line: str) -> str:
        path = tmp_path / "cpuinfo"
        path.write_text(f"processor\t: 0\nmodel name\t: x\n{line}\n\nprocessor\t: 1\n{line}\n")
        return str(path)

    assert cpu_has_bf16(flags("flags\t\t: fpu sse avx2 avx512f avx512_bf16"))
    assert cpu_has_bf16(flags("flags\t\t: fpu avx2 amx_bf16 amx_tile"))
    assert not cpu_has_bf16(flags("flags\t\t: fpu sse avx2 avx512f avx512bw"))
    assert not cpu_has_bf16(str(tmp_path / "missing"))


def test_adapters_on_the_last_blocks_only(tiny_model):
    from peft import get_peft_model

    blocks = AutoModelForCausalLM.from_pretrained(tiny_model).config.num_hidden_layers
    config = lora_config(4, model=str(tiny_model), layers=1)
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(tiny_model), config)
    adapted = {name.split(".layers.")[1].split(".")[0] for name, _ in model.named_parameters() if "lora_" in name}
    assert adapted == {str(blocks - 1)}
    # Every linear layer of that block: attention and MLP alike.
    kinds = {name.split(".")[-4] for name, _ in model.named_parameters() if "lora_A" in name}
    assert {"q_proj", "o_proj", "down_proj"} <= kinds
    with pytest.raises(ValueError, match=f"has {blocks} decoder blocks"):
        lora_config(4, model=str(tiny_model), layers=blocks + 1)


def test_grpo_trains_on_toolenv_episodes_and_rewards(server, sft_run, single_tasks, tmp_path):
    checkpoint = sft_run / "checkpoint"
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    tasks = [json.loads(line) for line in single_tasks.read_text().splitlines()]
    group, steps = 4, 3
    with ToolEnvClient(server.url) as client:
        options = EpisodeOptions(max_turns=MAX_TURNS)
        dataset = rl_dataset(client, tasks, options)
        rollout = ToolEnvRollout(client, tasks, options=options, max_turn_tokens=128, records=RecordWriter(tmp_path))
        rollout.register(dataset)
        rollouts: list[dict] = []

        def rollout_func(prompts, trainer):
            rollouts.append(rollout(prompts, trainer))
            return rollouts[-1]

        args = grpo_config(
            str(tmp_path / "out"), num_generations=group, per_device_train_batch_size=2 * group, max_steps=steps,
            max_completion_length=1024, learning_rate=1e-4, logging_steps=1, seed=0,
        )  # fmt: skip
        trainer = GRPOTrainer(
            model=AutoModelForCausalLM.from_pretrained(checkpoint), reward_funcs=REWARD_FUNCS, args=args,
            train_dataset=dataset, processing_class=tokenizer, rollout_func=rollout_func,
        )  # fmt: skip
        advantages: list[torch.Tensor] = []
        score = trainer._generate_and_score_completions

        def keep(inputs):
            output = score(inputs)
            advantages.append(output["advantages"].detach().clone())
            return output

        trainer._generate_and_score_completions = keep
        before = _weights(trainer.model)
        trainer.train()
        assert _changed(before, trainer.model), "no group's rewards varied: nothing to learn from"

    # Every rollout is a ToolEnv episode, recorded with its trajectory.
    records = {
        r["episode"]: r for f in (tmp_path / "episodes").iterdir() for r in map(json.loads, f.read_text().splitlines())
    }
    assert len(records) == steps * 2 * group
    assert sorted({r["step"] for r in records.values()}) == [1, 2, 3]
    trajectories = {
        t["id"]: t for f in (tmp_path / "trajectories").iterdir() for t in map(json.loads, f.read_text().splitlines())
    }
    assert trajectories.keys() == records.keys()
    assert all(t["group"] and len(t["turns"]) >= 1 for t in trajectories.values())

    logged = [h for h in trainer.state.log_history if "rewards/r_traj/mean" in h]
    for step, (out, adv) in enumerate(zip(rollouts, advantages, strict=True), 1):
        episodes = out["toolenv_episode"]
        # The components TRL saw are the server's, one rollout per episode, in the groups' order.
        assert [records[e]["r_traj"] for e in episodes] == out["r_traj"]
        assert [records[e]["step"] for e in episodes] == [step] * len(episodes)
        assert len({trajectories[e]["group"] for e in episodes[:group]}) == 1
        assert abs(logged[step - 1]["rewards/r_traj/mean"] - sum(out["r_traj"]) / len(episodes)) < 1e-5
        # Normalized one by one within each group, then weighted 1.0 / 0.5 / 0.25 (Eq. 7).
        components = [list(c) for c in zip(out["r_traj"], out["r_phase"], out["r_step"], strict=True)]
        assert torch.allclose(adv, _advantages_of(components, group), atol=1e-4)
        # Only the model's tokens carry loss: the observations ToolEnv wrote are masked.
        for e, ids, mask in zip(episodes, out["completion_ids"], out["env_mask"], strict=True):
            assert len(ids) == len(mask) and mask[0] == 1
            # A rollout that answered on its first turn got no observation; every longer one did.
            assert (0 in mask) == (records[e]["turns"] > 1), (records[e]["turns"], mask.count(0))
